package mycnf

import (
	"bytes"
	"errors"
	"testing"
	"testing/fstest"
)

// FuzzParse feeds arbitrary bytes to the reader as a file that may include
// itself and others (the same bytes under three names), and checks that it
// never panics or runs away, that every error is a positioned *Error wrapping
// one of the sentinels, that what it accepts is well formed and reads back the
// same after WriteTo, and that Settings of it are valid or an ErrInvalidConfig.
// The seed corpus is in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Add([]byte("[mysqld]\ninnodb_read_io_threads=16\nskip-thread-priority\n!include inc.cnf\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fsys := fstest.MapFS{
			"my.cnf":       {Data: data},
			"inc.cnf":      {Data: data},
			"conf.d/a.cnf": {Data: data},
		}
		r := Reader{MaxDepth: 4, MaxFileSize: 64 << 10, MaxTotalSize: 256 << 10, MaxFiles: 32}
		file, err := r.ParseFS(fsys, "my.cnf")
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is a %T, want *Error", err, err)
			}
			if !errors.Is(err, ErrSyntax) && !errors.Is(err, ErrInclude) && !errors.Is(err, ErrLimit) {
				t.Fatalf("error %v wraps no sentinel", err)
			}
			if e.Pos.File == "" || e.Pos.Line < 0 {
				t.Fatalf("error %v has position %+v", err, e.Pos)
			}
			return
		}
		for _, o := range file.Options {
			if o.Group == "" || checkKey(o.Key) != nil || o.Pos.Line < 1 || (!o.HasValue && o.Value != "") {
				t.Fatalf("malformed option %+v", o)
			}
		}

		var buf bytes.Buffer
		if _, err := file.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := Reader{MaxLineLength: 1 << 20}.Parse(&buf, "back.cnf")
		if err != nil {
			t.Fatalf("WriteTo output does not read back: %v\n%s", err, buf.String())
		}
		if a, b := strip(file), strip(back); len(a) != len(b) {
			t.Fatalf("read back %d options, want %d", len(b), len(a))
		} else {
			for i := range a {
				if a[i] != b[i] {
					t.Fatalf("option %d reads back as %+v, want %+v", i, b[i], a[i])
				}
			}
		}

		s, err := file.Settings()
		if err != nil && !errors.Is(err, ErrInvalidConfig) {
			t.Fatalf("Settings error %v does not wrap ErrInvalidConfig", err)
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("Settings stored an invalid value: %v", err)
		}
	})
}
