package mycnf

import (
	"strconv"
	"strings"
)

// lineKind says what one line of an option file is.
type lineKind int

const (
	lineBlank      lineKind = iota // empty, or a comment starting with # or ;
	lineGroup                      // [name]
	lineOption                     // key, or key=value
	lineInclude                    // !include path
	lineIncludeDir                 // !includedir path
)

// line is one lexed line. Which fields are set depends on kind.
type line struct {
	kind     lineKind
	name     string // group name, option key, or include path
	value    string // option value, unquoted and unescaped
	hasValue bool
}

// errLine is the message of a malformed line; the reader adds the position and
// ErrSyntax.
type errLine string

func (e errLine) Error() string { return string(e) }

// isSpace is my_isspace for the latin1 character set: the ASCII white space.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func trimSpace(s string) string {
	for len(s) > 0 && isSpace(s[0]) {
		s = s[1:]
	}
	return trimRightSpace(s)
}

func trimRightSpace(s string) string {
	for len(s) > 0 && isSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

// lexLine reads one line (without its newline) the way search_default_file_with_ext
// in mysys/my_default.cc does, with one difference of policy: where MySQL lets a
// doubtful line through (text after a group's ']', a stray ! directive, a value
// with an opening quote and no closing one, a key with spaces in it) and fails
// later or not at all, lexLine returns an error, so that the file and line number
// reach the user.
func lexLine(s string) (line, error) {
	if strings.IndexByte(s, 0) >= 0 {
		return line{}, errLine("NUL byte in line (binary file?)")
	}
	s = trimSpace(s)
	switch {
	case s == "" || s[0] == '#' || s[0] == ';':
		// ';' starts a comment only here, at the start of a line: later in a line
		// it is data (innodb_data_file_path=ibdata1:10M;ibdata2:10M:autoextend).
		return line{kind: lineBlank}, nil
	case s[0] == '!':
		return lexDirective(s[1:])
	case s[0] == '[':
		return lexGroup(s[1:])
	}
	return lexOption(s)
}

// lexDirective reads what follows '!'. The keyword must be followed by white
// space and a path; the path runs to the end of the line (MySQL strips no
// comment from it, and neither do we).
func lexDirective(s string) (line, error) {
	s = trimSpace(s)
	for _, d := range []struct {
		kw   string
		kind lineKind
	}{{"includedir", lineIncludeDir}, {"include", lineInclude}} {
		rest, ok := strings.CutPrefix(s, d.kw)
		if !ok || (rest != "" && !isSpace(rest[0])) {
			continue
		}
		arg := trimSpace(rest)
		if arg == "" {
			return line{}, errLine("!" + d.kw + " without a path")
		}
		return line{kind: d.kind, name: arg}, nil
	}
	word := s
	if i := strings.IndexFunc(s, func(r rune) bool { return r < 0x80 && isSpace(byte(r)) }); i >= 0 {
		word = s[:i]
	}
	return line{}, errLine("unknown directive " + quoteUnsafe("!"+word) + ", want !include or !includedir")
}

// lexGroup reads what follows '['.
func lexGroup(s string) (line, error) {
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return line{}, errLine("group header without ']'")
	}
	name := trimSpace(s[:end])
	if name == "" {
		return line{}, errLine("empty group name")
	}
	if rest := trimSpace(s[end+1:]); rest != "" && rest[0] != '#' && rest[0] != ';' {
		return line{}, errLine("text after group header [" + quoteUnsafe(name) + "]: " + quoteUnsafe(rest))
	}
	return line{kind: lineGroup, name: name}, nil
}

// lexOption reads "key", "key = value" or either with a trailing # comment.
func lexOption(s string) (line, error) {
	s = s[:commentStart(s)]
	key, value, hasValue := strings.Cut(s, "=")
	key = trimRightSpace(key)
	if err := checkKey(key); err != nil {
		return line{}, err
	}
	if !hasValue {
		return line{kind: lineOption, name: key}, nil
	}
	value = trimSpace(value)
	if value != "" && (value[0] == '"' || value[0] == '\'') {
		if len(value) < 2 || value[len(value)-1] != value[0] {
			return line{}, errLine("unterminated quote in value of " + key)
		}
		value = value[1 : len(value)-1]
	}
	return line{kind: lineOption, name: key, value: unescape(value), hasValue: true}, nil
}

// commentStart returns the index of the '#' that starts a trailing comment, or
// len(s). A '#' inside single or double quotes is data; inside quotes a
// backslash protects the next quote character. This is remove_end_comment in
// mysys/my_default.cc: outside quotes a backslash protects nothing.
func commentStart(s string) int {
	var quote byte
	escaped := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case (c == '"' || c == '\'') && !escaped:
			if quote == 0 {
				quote = c
			} else if quote == c {
				quote = 0
			}
		case c == '#' && quote == 0:
			return i
		}
		escaped = quote != 0 && c == '\\' && !escaped
	}
	return len(s)
}

// checkKey accepts the characters MySQL option names are made of, plus '.' for
// structured variables (hot_cache.key_buffer_size).
func checkKey(key string) error {
	if key == "" {
		return errLine("option without a name")
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' {
			continue
		}
		if isSpace(c) {
			return errLine("space in option name " + strconv.Quote(key) + " (missing '='?)")
		}
		return errLine("invalid character " + strconv.QuoteRune(rune(c)) + " in option name " + strconv.Quote(key))
	}
	return nil
}

// unescape replaces the escapes MySQL recognises in option values, quoted or
// not: \n \t \r \b, \s for a space, \" \' \\. A backslash before any other
// character, or at the end, is kept as it is (so C:\mysql\data survives, though
// C:\new does not).
func unescape(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i == len(s)-1 {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 's':
			b.WriteByte(' ')
		case '"', '\'', '\\':
			b.WriteByte(s[i])
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// quoteValue returns v as it must be written after '=' to read back as v: bare
// when that is safe, else in double quotes with \\ \" \n \t \r \b escaped.
func quoteValue(v string) string {
	if v != "" && !needsQuotes(v) {
		return v
	}
	if v == "" {
		return v
	}
	var b strings.Builder
	b.Grow(len(v) + 2)
	b.WriteByte('"')
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '\\', '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		case '\b':
			b.WriteString(`\b`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func needsQuotes(v string) bool {
	if isSpace(v[0]) || isSpace(v[len(v)-1]) {
		return true
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c == 0x7f || c == '#' || c == '\\' || c == '"' || c == '\'' {
			return true
		}
	}
	return false
}
