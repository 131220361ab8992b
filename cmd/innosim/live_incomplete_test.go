package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/internal/cmdflag"
	"github.com/innosim/innosim/internal/live"
	"github.com/innosim/innosim/internal/outfile"
)

// An interrupted live sweep keeps what it measured: the table of the points
// so far and the CSV, each marked incomplete; it discarded every point
// ("interrupted: server stopped, no output written").
func TestAnInterruptedLiveSweepKeepsWhatItMeasured(t *testing.T) {
	cfg := live.DefaultConfig()
	cfg.Workloads = []string{"oltp_point_select", "connect"}
	cfg.Threads = []int{1, 2, 4}
	points := []live.Point{
		{Value: "one-thread-per-connection", Workload: "oltp_point_select", Threads: 1, CPUs: 2, Throughput: 1000, Unit: "queries/s"},
		{Value: "one-thread-per-connection", Workload: "oltp_point_select", Threads: 2, CPUs: 2, Throughput: 1800, Unit: "queries/s"},
		{Value: "one-thread-per-connection", Workload: "oltp_point_select", Threads: 4, CPUs: 2, Throughput: 2500, Unit: "queries/s"},
		{Value: "one-thread-per-connection", Workload: "connect", Threads: 1, CPUs: 2, Throughput: 300, Unit: "connections/s"},
	}
	path := filepath.Join(t.TempDir(), "live.csv")
	out, err := outfile.New("-csv", path)
	require.NoError(t, err)
	defer out.Discard()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout bytes.Buffer
	err = keepMeasured(ctx, context.Canceled, len(points), 12, out, &stdout, liveTable(cfg, points),
		func(w io.Writer) error { return live.WriteCSV(w, cfg.Setting, points) })
	require.ErrorIs(t, err, context.Canceled)
	assert.EqualError(t, err, "interrupted after 4 of 12 points, server stopped; the 4 measured are in "+path+", marked incomplete: context canceled")
	assert.Contains(t, stdout.String(), "(incomplete: interrupted after 4 of 12 points)")
	assert.Regexp(t, `one-thread-per-connection\s+connect\s+2\s+300.0\s*\n`, stdout.String(), "the partial row, its unmeasured cells empty")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	assert.Equal(t, "# incomplete: interrupted after 4 of 12 points", lines[0])
	assert.Len(t, lines, 2+len(points), "the note, the header and a row a point")

	// the CSV reads back in validate, which names it incomplete
	code, _, stderr := runCmd("validate", "tables", "--table", path, "--seeds", "1")
	assert.Contains(t, stderr, path+": incomplete: interrupted after 4 of 12 points", "exit %d", code)
}

// A failure keeps what was measured too, and a refusal before any point is
// a usage error.
func TestAFailedLiveSweepKeepsWhatItMeasured(t *testing.T) {
	cfg := live.DefaultConfig()
	cfg.Setting, cfg.Values = "", nil
	cfg.Threads = []int{1, 2}
	points := []live.Point{{Workload: "oltp_point_select", Threads: 1, CPUs: 2, Throughput: 1000, Unit: "queries/s"}}
	out, err := outfile.New("-csv", "")
	require.NoError(t, err)
	var stdout bytes.Buffer
	failure := errors.New("live: server: sysbench run oltp_point_select --threads=2: exit status 1")
	err = keepMeasured(context.Background(), failure, 1, 2, out, &stdout, liveTable(cfg, points),
		func(w io.Writer) error { return live.WriteCSV(w, cfg.Setting, points) })
	assert.ErrorIs(t, err, failure)
	assert.Contains(t, err.Error(), "(incomplete: failed after 1 of 2 points)")
	assert.Contains(t, stdout.String(), "(incomplete: failed after 1 of 2 points)")

	refused := live.ErrInvalidConfig
	err = keepMeasured(context.Background(), refused, 0, 2, out, &stdout, liveTable(cfg, nil), nil)
	assert.True(t, cmdflag.IsUsage(err))
}
