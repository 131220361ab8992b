package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Item 5: a study's verdict is its machine's; reproduce refuses --costs
// rather than failing three studies unexplained.
func TestReproduceRefusesCosts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.profile")
	require.NoError(t, os.WriteFile(path, []byte("syscall = 200ns\n"), 0o644))
	code, out, stderr := runCmd("reproduce", "--costs", path)
	assert.Equal(t, 2, code)
	assert.Empty(t, out, "no study ran")
	assert.Contains(t, stderr, "a study runs on its own machine")
	assert.Contains(t, stderr, "innosim run --costs")
}

// --charts DIR created every missing directory on the way to DIR
// (os.MkdirAll), where -csv, -json and -plot refuse a path whose directory is
// not there; and it was checked only once the first study had run. DIR itself
// may be new, as a file output may, but its parent must exist.
func TestReproduceChecksChartsBeforeTheFirstStudy(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	tests := []struct {
		name, charts, want string
	}{
		{"a directory whose parent is not there", filepath.Join(dir, "no", "charts"), "-charts: mkdir " + filepath.Join(dir, "no", "charts")},
		{"a file as the directory", file, "-charts " + file + ": not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			var o, e bytes.Buffer
			code := run(ctx, []string{"reproduce", "--charts", tt.charts, "c"}, &o, &e)
			require.NoError(t, ctx.Err(), "refused only after running")
			assert.Equal(t, 1, code)
			assert.Contains(t, e.String(), tt.want)
			assert.Empty(t, o.String(), "no study ran")
		})
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "nothing created beside the file")
	assert.Equal(t, "f", entries[0].Name())
}

// reproduce a c, as its page shows, was refused ("want one study"): studies
// named run in the order named.
func TestReproduceRunsTheStudiesNamed(t *testing.T) {
	o, err := parseReproduce([]string{"c", "--seed", "2", "a"}, io.Discard)
	require.NoError(t, err)
	var ids []string
	for _, s := range o.studies {
		ids = append(ids, s.ID)
	}
	assert.Equal(t, []string{"c", "a"}, ids)
	assert.Equal(t, uint64(2), o.seed)
	o, err = parseReproduce(nil, io.Discard)
	require.NoError(t, err)
	assert.Len(t, o.studies, 4)
}
