package mycnf

import (
	"io"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// endless is an io.Reader that never ends: a "file" such as /dev/zero.
type endless struct{ b byte }

func (e endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = e.b
	}
	return len(p), nil
}

func TestReaderBoundsItsWork(t *testing.T) {
	tests := []struct {
		name    string
		reader  Reader
		src     io.Reader
		line    int
		message string
	}{
		{"an endless stream", Reader{}, endless{'\n'}, 0, "file longer than 1048576 bytes (Reader.MaxFileSize)"},
		{"an endless line", Reader{}, io.MultiReader(strings.NewReader("[mysqld]\n"), endless{'a'}), 0, "file longer than"},
		{"a file over a small limit", Reader{MaxFileSize: 10}, strings.NewReader("[mysqld]\na=1\n"), 0, "file longer than 10 bytes"},
		{"a file over the total limit", Reader{MaxTotalSize: 10}, strings.NewReader("[mysqld]\na=1\n"), 0, "more than 10 bytes (Reader.MaxTotalSize)"},
		{"a line over MySQL's buffer", Reader{}, strings.NewReader("[mysqld]\na=" + strings.Repeat("x", 4095) + "\n"), 2, "line longer than 4096 bytes (Reader.MaxLineLength)"},
		{"a line over a small limit", Reader{MaxLineLength: 8}, strings.NewReader("[mysqld]\nabc=1\nabcdefg=1\n"), 3, "line longer than 8 bytes"},
		// 1 MiB of "a=1" lines is 262144 options, some 25 MB kept; the files
		// of one call may add up to 8 MiB.
		{"a flood of options", Reader{}, strings.NewReader("[mysqld]\n" + strings.Repeat("a=1\n", 1<<18-3)), 4098, "more than 4096 options in one file (Reader.MaxFileOptions)"},
		{"options over a small limit", Reader{MaxFileOptions: 2}, strings.NewReader("[mysqld]\na=1\n\nb=2\nc=3\n"), 5, "more than 2 options in one file"},
		{"options over the total limit", Reader{MaxOptions: 2}, strings.NewReader("[mysqld]\na=1\nb=2\nc=3\n"), 4, "more than 2 options in all files read (Reader.MaxOptions)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.reader.Parse(tt.src, "big.cnf")
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrLimit)
			assert.Contains(t, err.Error(), tt.message)
			e, ok := err.(*Error)
			require.True(t, ok, "want *Error, got %T", err)
			assert.Equal(t, Pos{"big.cnf", tt.line}, e.Pos)
		})
	}
}

func TestReaderAcceptsInputAtItsLimits(t *testing.T) {
	line := "a=" + strings.Repeat("x", 4094) // 4096 bytes
	f, err := Parse(strings.NewReader("[mysqld]\n"+line+"\r\n"), "ok.cnf")
	require.NoError(t, err, "a 4096-byte line plus CR LF is within the default")
	assert.Len(t, f.Options[0].Value, 4094)

	in := "[mysqld]\na=1\n"
	_, err = Reader{MaxFileSize: int64(len(in)), MaxTotalSize: int64(len(in))}.Parse(strings.NewReader(in), "ok.cnf")
	assert.NoError(t, err, "a file exactly at the size limits")

	_, err = Reader{MaxFileSize: math.MaxInt64, MaxTotalSize: math.MaxInt64}.Parse(strings.NewReader(in), "ok.cnf")
	assert.NoError(t, err, "the largest limits do not overflow")
}

func TestReaderRejectsNegativeLimits(t *testing.T) {
	tests := []struct {
		name   string
		reader Reader
		field  string
	}{
		{"depth", Reader{MaxDepth: -1}, "Reader.MaxDepth = -1"},
		{"line", Reader{MaxLineLength: -1}, "Reader.MaxLineLength = -1"},
		{"file", Reader{MaxFileSize: -5}, "Reader.MaxFileSize = -5"},
		{"total", Reader{MaxTotalSize: -1}, "Reader.MaxTotalSize = -1"},
		{"files", Reader{MaxFiles: -2}, "Reader.MaxFiles = -2"},
		{"options per file", Reader{MaxFileOptions: -1}, "Reader.MaxFileOptions = -1"},
		{"options", Reader{MaxOptions: -1}, "Reader.MaxOptions = -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, parse := range []func() error{
				func() error { _, err := tt.reader.Parse(strings.NewReader(""), "x"); return err },
				func() error { _, err := tt.reader.ParseFS(mapFS(nil), "x"); return err },
				func() error { _, err := tt.reader.ParseFile("x"); return err },
			} {
				err := parse()
				assert.ErrorIs(t, err, ErrInvalidConfig)
				assert.ErrorContains(t, err, tt.field+", want >= 0")
			}
		})
	}
}
