package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

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

// A not-steady cell kept its last window's utilisation, futex spin share
// and I/O rates in the CSV, the JSON and the I/O table while its throughput
// said not steady: figures the simulator cannot stand behind. Every figure
// of such a cell is now empty in the CSV, null in the JSON and not steady
// in the I/O table; a steady cell keeps its own.
func TestRunReportPrintsNoFigureOfANotSteadyCell(t *testing.T) {
	o, err := parseRun([]string{"--workload", "connect", "--threads", "1,8", "--cpus", "2"}, io.Discard)
	require.NoError(t, err)
	sw, err := buildSweep(o, io.Discard, io.Discard)
	require.NoError(t, err)
	cell := func(notSteady bool) sim.Result {
		r := sim.Result{Throughput: 5000, Elapsed: time.Second, Capacity: 2e9, Reads: 3000, Writes: 4000, Fsyncs: 700, NotSteady: notSteady}
		r.CPU[0], r.CPU[1] = 1.1e9, 0.2e9
		return r
	}
	rep := newRunReport(t.Context(), sw, []sim.Result{cell(false), cell(true)})
	dir := t.TempDir()
	var text bytes.Buffer
	outs, err := outputs(&text, "-csv", filepath.Join(dir, "r.csv"), "-json", filepath.Join(dir, "r.json"), "-plot", "")
	require.NoError(t, err)
	require.NoError(t, rep.write(&text, outs[0], outs[1], outs[2]))

	require.NotNil(t, rep.io, "the cells did I/O: the I/O table prints")
	assert.Regexp(t, `(?m)^2 +3000/4000/700 +not steady$`, text.String())
	b, err := os.ReadFile(filepath.Join(dir, "r.csv"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "\n2,1,5000,connections/s,0.65,")
	assert.Contains(t, string(b), "\n2,8,not steady,connections/s,,,,,\n")

	var js struct {
		Cells []map[string]any `json:"cells"`
	}
	b, err = os.ReadFile(filepath.Join(dir, "r.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &js))
	require.Len(t, js.Cells, 2)
	for _, k := range []string{"throughput", "utilisation", "futex_spin_share", "reads_per_s", "writes_per_s", "fsyncs_per_s"} {
		assert.NotNil(t, js.Cells[0][k], "steady cell's %s", k)
		v, ok := js.Cells[1][k]
		assert.True(t, ok, "not-steady cell's %s is there, as null", k)
		assert.Nil(t, v, "not-steady cell's %s", k)
	}
	assert.Equal(t, true, js.Cells[1]["not_steady"])
}
