package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/internal/report"
)

// Every command that writes JSON takes --json FILE, and --json - for stdout
// instead of its text: run and reproduce wrote only files, calibrate -json
// was a boolean to stdout, and compare, fit and profile had no JSON.
func TestJSONToStdoutReplacesTheText(t *testing.T) {
	code, out, stderr := runCmd("run", "--workload", "connect", "--threads", "1,8", "--cpus", "2", "--measure", "2ms", "--json", "-")
	require.Equal(t, 0, code, stderr)
	var r runJSON
	require.NoError(t, json.Unmarshal([]byte(out), &r), out)
	assert.Len(t, r.Cells, 2)
	assert.Equal(t, "connect", r.Workload)

	code, out, stderr = runCmd("reproduce", "--json", "-", "c")
	require.Equal(t, 0, code, stderr)
	var studies []studyJSON
	require.NoError(t, json.Unmarshal([]byte(out), &studies), out)
	require.Len(t, studies, 1)
	assert.Equal(t, "c", studies[0].ID)
	assert.True(t, studies[0].Pass)

	for _, cmd := range [][]string{{"compare", "--json", "-"}, {"profile", "--json", "-"}, {"fit", "--json", "-"}, {"calibrate", "-h"}} {
		_, _, stderr := runCmd(append(cmd, "-h")...)
		assert.Regexp(t, `-json string\n\s+also write .* JSON file; - writes (it|them) to stdout instead of the (text|tables)`, stderr, "%v", cmd)
	}
}

// -json - and -show-settings would both write to stdout.
func TestRunRefusesShowSettingsWithJSONToStdout(t *testing.T) {
	code, out, stderr := runCmd("run", "--workload", "connect", "--show-settings", "--json", "-")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "-show-settings with -json -")
}

// reproduce --json wrote every table cell as a string ("0.98", "-"): a
// figure is a JSON number, or null where the table has none.
func TestReproduceJSONFiguresAreNumbers(t *testing.T) {
	tj := newTableJSON(report.Table{Title: "t", Header: []string{"wake", "io threads", "pub", "sim", "sim/pub"},
		Rows: [][]string{{"all", "16+16", "910000", "892370", "0.98"}, {"targeted", "4+4", "-", "1.1e+06", ""}}})
	b, err := json.Marshal(tj)
	require.NoError(t, err)
	assert.JSONEq(t, `{"title":"t","header":["wake","io threads","pub","sim","sim/pub"],
		"rows":[["all","16+16",910000,892370,0.98],["targeted","4+4",null,1100000,null]]}`, string(b))
}

// run --json wrote its window and warm-up as Go's duration text ("1ms",
// "20ms"): they are numbers of nanoseconds, the warm-up null when it is
// steady (no one figure, and run's default), beside its kind.
func TestRunJSONDurationsAreNumbers(t *testing.T) {
	code, out, stderr := runCmd("run", "--workload", "connect", "--threads", "1", "--cpus", "2", "--measure", "2ms", "--warmup", "20ms", "--json", "-")
	require.Equal(t, 0, code, stderr)
	var raw map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &raw), out)
	assert.Equal(t, float64(2_000_000), raw["measure_ns"])
	assert.Equal(t, "fixed", raw["warmup"])
	assert.Equal(t, float64(20_000_000), raw["warmup_ns"])

	code, out, stderr = runCmd("run", "--workload", "connect", "--threads", "1", "--cpus", "2", "--measure", "2ms", "--json", "-")
	require.Equal(t, 0, code, stderr)
	raw = nil
	require.NoError(t, json.Unmarshal([]byte(out), &raw), out)
	assert.Equal(t, "steady", raw["warmup"])
	v, ok := raw["warmup_ns"]
	assert.True(t, ok)
	assert.Nil(t, v)
}
