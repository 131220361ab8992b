package cmdflag

import (
	"strconv"
	"unicode"
	"unicode/utf8"
)

// QuotePath returns a path (or any name a user gave) as a message prints it:
// as it is when every character is printable, else quoted as strconv.Quote
// quotes it ("\x1b]0;x\a.csv"), so that a name cannot clear the screen, set
// a window title or hide part of the message it is in.
func QuotePath(p string) string {
	if !utf8.ValidString(p) {
		return strconv.Quote(p)
	}
	for _, r := range p {
		if !unicode.IsPrint(r) && r != ' ' {
			return strconv.Quote(p)
		}
	}
	return p
}

// TerminalSafe returns a message for a terminal: every character that is
// not printable (a control character, an invalid byte), but the newline and
// tab that lay the message out, escaped as strconv.Quote escapes it (\x1b,
// \r, \u0085). A net under QuotePath for a name that reached a message raw,
// as the path in an *os.PathError.
func TerminalSafe(msg string) string {
	safe := true
	for i, r := range msg {
		if (r == utf8.RuneError && !validAt(msg, i)) || (!unicode.IsPrint(r) && r != ' ' && r != '\n' && r != '\t') {
			safe = false
			break
		}
	}
	if safe {
		return msg
	}
	out := make([]byte, 0, len(msg)+16)
	for i := 0; i < len(msg); {
		r, n := utf8.DecodeRuneInString(msg[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			out = append(out, `\x`...)
			out = append(out, "0123456789abcdef"[msg[i]>>4], "0123456789abcdef"[msg[i]&0xf])
		case r == '\n' || r == '\t' || r == ' ' || unicode.IsPrint(r):
			out = append(out, msg[i:i+n]...)
		default:
			q := strconv.QuoteRune(r) // '\x1b'
			out = append(out, q[1:len(q)-1]...)
		}
		i += n
	}
	return string(out)
}

// validAt reports whether msg holds a valid encoding at i (a U+FFFD written
// out, not an invalid byte).
func validAt(msg string, i int) bool {
	_, n := utf8.DecodeRuneInString(msg[i:])
	return n > 1
}
