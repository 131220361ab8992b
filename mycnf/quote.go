package mycnf

import (
	"strconv"
	"unicode"
	"unicode/utf8"
)

// quoteUnsafe returns s as it is when every character is printable (spaces
// included), else quoted with strconv.Quote, so that a message never carries a
// file's control bytes (an escape sequence, a carriage return) to a terminal.
func quoteUnsafe(s string) string {
	if !utf8.ValidString(s) {
		return strconv.Quote(s)
	}
	for _, r := range s {
		if !unicode.IsPrint(r) && r != ' ' {
			return strconv.Quote(s)
		}
	}
	return s
}
