package mycnf

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"strings"
)

// parser is the state of one Parse call: the limits, where includes come
// from, the result so far, the running totals the limits are checked against,
// and the chain of files being read (the cycle guard).
type parser struct {
	lim   Reader
	src   source // nil: includes are not allowed
	out   *File
	total int64    // bytes read so far, all files
	chain []string // ids of the files being read, top file first
	names []string // their names, for the cycle message
}

func (r Reader) newParser(src source) (*parser, error) {
	lim, err := r.limits()
	if err != nil {
		return nil, err
	}
	return &parser{lim: lim, src: src}, nil
}

// run reads the top file.
func (p *parser) run(name string, open func() (io.ReadCloser, error)) (*File, error) {
	p.out = &File{Name: name}
	data, err := p.read(name, open)
	if err != nil {
		return nil, err
	}
	if err := p.parse(name, data, 0); err != nil {
		return nil, err
	}
	return p.out, nil
}

// read reads one whole file within the file-size, total-size and file-count
// limits. Errors carry the file's name and line 0.
func (p *parser) read(name string, open func() (io.ReadCloser, error)) ([]byte, error) {
	at := Pos{File: name}
	if len(p.out.Sources) >= p.lim.MaxFiles {
		return nil, &Error{at, fmt.Errorf("more than %d files read (Reader.MaxFiles): %w", p.lim.MaxFiles, ErrLimit)}
	}
	rc, err := open()
	if err != nil {
		return nil, &Error{at, atPath(at, err)}
	}
	defer rc.Close()
	limit := p.lim.MaxFileSize
	if limit < math.MaxInt64 {
		limit++ // one byte more than allowed, to tell "at the limit" from "over it"
	}
	data, err := io.ReadAll(io.LimitReader(rc, limit))
	if err != nil {
		return nil, &Error{at, atPath(at, err)}
	}
	if int64(len(data)) > p.lim.MaxFileSize {
		return nil, &Error{at, fmt.Errorf("file longer than %d bytes (Reader.MaxFileSize): %w", p.lim.MaxFileSize, ErrLimit)}
	}
	p.total += int64(len(data))
	if p.total > p.lim.MaxTotalSize {
		return nil, &Error{at, fmt.Errorf("files read add up to more than %d bytes (Reader.MaxTotalSize): %w", p.lim.MaxTotalSize, ErrLimit)}
	}
	p.out.Sources = append(p.out.Sources, name)
	return data, nil
}

// parse reads the lines of one file at include depth depth (0 for the top
// file). The current group starts empty in every file, as in MySQL: an
// included file must open its own [group] before its first option.
func (p *parser) parse(name string, data []byte, depth int) error {
	p.chain = append(p.chain, p.id(name))
	p.names = append(p.names, name)
	defer func() {
		p.chain = p.chain[:len(p.chain)-1]
		p.names = p.names[:len(p.names)-1]
	}()

	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a UTF-8 byte order mark
	group := ""
	options := 0 // in this file
	for n := 1; len(data) > 0; n++ {
		raw := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			raw, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		raw = bytes.TrimSuffix(raw, []byte("\r"))
		at := Pos{File: name, Line: n}
		if len(raw) > p.lim.MaxLineLength {
			return &Error{at, fmt.Errorf("line longer than %d bytes (Reader.MaxLineLength): %w", p.lim.MaxLineLength, ErrLimit)}
		}
		l, err := lexLine(string(raw))
		if err != nil {
			return &Error{at, fmt.Errorf("%w: %w", err, ErrSyntax)}
		}
		switch l.kind {
		case lineGroup:
			group = l.name
		case lineOption:
			if group == "" {
				return &Error{at, fmt.Errorf("option %s before any [group]: %w", quoteUnsafe(l.name), ErrSyntax)}
			}
			if options++; options > p.lim.MaxFileOptions {
				return &Error{at, fmt.Errorf("more than %d options in one file (Reader.MaxFileOptions): %w", p.lim.MaxFileOptions, ErrLimit)}
			}
			if len(p.out.Options) >= p.lim.MaxOptions {
				return &Error{at, fmt.Errorf("more than %d options in all files read (Reader.MaxOptions): %w", p.lim.MaxOptions, ErrLimit)}
			}
			p.out.Options = append(p.out.Options, Option{Group: group, Key: l.name, Value: l.value, HasValue: l.hasValue, Pos: at})
		case lineInclude, lineIncludeDir:
			if err := p.include(at, l, depth); err != nil {
				return err
			}
		}
	}
	return nil
}

// include follows one !include or !includedir line.
func (p *parser) include(at Pos, l line, depth int) error {
	directive := "!include " + quoteUnsafe(l.name)
	if l.kind == lineIncludeDir {
		directive = "!includedir " + quoteUnsafe(l.name)
	}
	if p.src == nil {
		return &Error{at, fmt.Errorf("%s: input read from an io.Reader cannot include files (use ParseFS or ParseFile): %w", directive, ErrInclude)}
	}
	if depth >= p.lim.MaxDepth {
		return &Error{at, fmt.Errorf("%s: includes nested deeper than %d (Reader.MaxDepth): %w", directive, p.lim.MaxDepth, ErrLimit)}
	}
	target, err := p.src.resolve(at.File, l.name)
	if err != nil {
		return &Error{at, fmt.Errorf("%s: %w: %w", directive, ErrInclude, err)}
	}
	files := []string{target}
	if l.kind == lineIncludeDir {
		if files, err = p.src.optionFiles(target); err != nil {
			return &Error{at, fmt.Errorf("%s: %w: %w", directive, ErrInclude, err)}
		}
	}
	for _, f := range files {
		if i := p.indexInChain(f); i >= 0 {
			var names []string
			for _, n := range append(p.names[i:len(p.names):len(p.names)], f) {
				names = append(names, quoteUnsafe(n))
			}
			cycle := strings.Join(names, " -> ")
			return &Error{at, fmt.Errorf("%s: include cycle %s: %w", directive, cycle, ErrInclude)}
		}
		data, err := p.read(f, func() (io.ReadCloser, error) { return p.src.open(f) })
		if err != nil {
			if e, ok := err.(*Error); ok && e.Pos.Line == 0 {
				err = e.Err // report it at the !include line instead, naming the file
				if pe, ok := err.(pathError); ok {
					err = pe.pe
				}
			}
			return &Error{at, fmt.Errorf("%s: %w", directive, wrapInclude(err))}
		}
		if err := p.parse(f, data, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// wrapInclude makes a failure to open or read an included file an ErrInclude,
// leaving limit errors as they are.
func wrapInclude(err error) error {
	if errors.Is(err, ErrLimit) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrInclude, err)
}

func (p *parser) id(name string) string {
	if p.src == nil {
		return name
	}
	return p.src.id(name)
}

func (p *parser) indexInChain(name string) int {
	id := p.id(name)
	for i, c := range p.chain {
		if c == id {
			return i
		}
	}
	return -1
}

// atPath returns err, an error of opening or reading the file at, with the
// path of an *fs.PathError in it quoted where unsafe to print and, when it
// is at's own, left out (pathError).
func atPath(at Pos, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		pe.Path = quoteUnsafe(pe.Path) // the name may come from an !include line
		if pe.Path == at.String() {
			return pathError{pe} // the position names the file already
		}
	}
	return err
}

// pathError is an *fs.PathError shown without its path, for an Error whose
// position names the same file ("mycnf: my.cnf: open: no such file or
// directory", not "mycnf: my.cnf: open my.cnf: ..."). errors.As still finds
// the *fs.PathError.
type pathError struct{ pe *fs.PathError }

func (e pathError) Error() string {
	if errors.Is(e.pe.Err, errNotRegular) {
		return e.pe.Err.Error()
	}
	return e.pe.Op + ": " + e.pe.Err.Error()
}
func (e pathError) Unwrap() error { return e.pe }
