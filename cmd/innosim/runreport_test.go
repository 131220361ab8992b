package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/sim"
)

// A cell still in its transient at its steady warm-up's bound printed its
// last window's figure like any other; it prints not steady in the table
// and the CSV, and a null throughput with not_steady in the JSON, never a
// figure or 0, and stays out of the USL fit.
func TestRunReportPrintsNotSteadyForACellThatDidNotSettle(t *testing.T) {
	o, err := parseRun([]string{"--workload", "connect", "--threads", "1,8", "--cpus", "2"}, io.Discard)
	require.NoError(t, err)
	sw, err := buildSweep(o, io.Discard, io.Discard)
	require.NoError(t, err)
	res := []sim.Result{{Throughput: 5000, Elapsed: 1}, {Throughput: 1234, Elapsed: 1, NotSteady: true}}
	rep := newRunReport(t.Context(), sw, res)
	dir := t.TempDir()
	var text bytes.Buffer
	outs, err := outputs(&text, "-csv", filepath.Join(dir, "r.csv"), "-json", filepath.Join(dir, "r.json"), "-plot", "")
	require.NoError(t, err)
	require.NoError(t, rep.write(&text, outs[0], outs[1], outs[2]))
	assert.Regexp(t, `(?m)^2 +5000 +not steady +-$`, text.String())
	assert.NotContains(t, text.String(), "1234")
	b, err := os.ReadFile(filepath.Join(dir, "r.csv"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "2,8,not steady,")
	var js runJSON
	b, err = os.ReadFile(filepath.Join(dir, "r.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &js))
	require.Len(t, js.Cells, 2)
	assert.Nil(t, js.Cells[1].Throughput)
	assert.True(t, js.Cells[1].NotSteady)
	require.NotNil(t, js.Cells[0].Throughput)
	assert.False(t, js.Cells[0].NotSteady)
}
