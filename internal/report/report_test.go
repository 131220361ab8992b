package report

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTableTextAlignsNumbersRightAndWordsLeft(t *testing.T) {
	tb := Table{Title: "T", Header: []string{"name", "value"}}
	tb.AddRow("a", 1234.5)
	tb.AddRow("longer", 0.5)
	var b strings.Builder
	require.NoError(t, tb.WriteText(&b))
	assert.Equal(t, "T\nname    value\na        1234\nlonger   0.50\n", b.String())
}

func TestTableCSVHasHeaderAndRowsButNoTitle(t *testing.T) {
	tb := Table{Title: "T", Header: []string{"x", "y"}}
	tb.AddRow(1, "a,b")
	var b strings.Builder
	require.NoError(t, tb.WriteCSV(&b))
	assert.Equal(t, "x,y\n1,\"a,b\"\n", b.String())
}

func TestWriteChartRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, path string
		series     []Series
		want       string
	}{
		{"an unknown extension", filepath.Join(dir, "c.gif"), nil, `extension ".gif"`},
		{"a series with fewer Y than X", filepath.Join(dir, "c.svg"), []Series{{Name: "s", X: []float64{1, 2}, Y: []float64{1}}}, "2 X and 1 Y"},
		// a log axis cannot hold these: gonum's LogTicks panicked
		{"X = 0 on a log scale", filepath.Join(dir, "c.svg"), []Series{{Name: "s", X: []float64{0, 2}, Y: []float64{1, 2}}}, "X = 0 on a log scale"},
		{"X < 0 on a log scale", filepath.Join(dir, "c.svg"), []Series{{Name: "s", X: []float64{-1, 2}, Y: []float64{1, 2}}}, "X = -1 on a log scale"},
		{"X NaN on a log scale", filepath.Join(dir, "c.svg"), []Series{{Name: "s", X: []float64{math.NaN(), 2}, Y: []float64{1, 2}}}, "X = NaN on a log scale"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := WriteChart(tt.path, "t", "x", "y", true, tt.series)
			require.ErrorIs(t, err, ErrInvalidConfig)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// A sweep of one thread count (run --threads 1 --plot F) drew a log axis that
// gonum/plot widened to 0..2, and LogTicks panicked ("Values must be greater
// than 0 for a log scale"); every format and any single X is drawn now.
func TestWriteChartOfOneXValueOnALogScale(t *testing.T) {
	for _, ext := range []string{".svg", ".png", ".pdf"} {
		for _, x := range []float64{1, 64} {
			path := filepath.Join(t.TempDir(), "c"+ext)
			series := []Series{{Name: "a", X: []float64{x}, Y: []float64{5000}}, {Name: "b", X: []float64{x}, Y: []float64{6000}}}
			require.NoError(t, WriteChart(path, "t", "x", "y", true, series), "%s x=%v", ext, x)
			assert.FileExists(t, path)
		}
	}
}

func TestWriteChartWritesSVG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.svg")
	c := Chart{Title: "t", XLabel: "x", YLabel: "y", LogX: true,
		Series: []Series{{Name: "s", X: []float64{1, 2, 4}, Y: []float64{1, 2, 3}, Dashed: true, Color: 2}}}
	require.NoError(t, c.Write(path))
	assert.FileExists(t, path)
}

// Tables and CSV print every float the same way, without exponents: a share
// of 1.41302e-17 (what rounding left of zero) beside 230.0 was printed as
// 1.41302e-17, and a share of 0.004 as 0.00.
func TestNumbersHaveOneFormat(t *testing.T) {
	for v, want := range map[float64]string{
		0: "0", 1.41302e-17: "0", -3e-9: "0", 0.0041234: "0.0041", 0.00012: "0.00012",
		0.5: "0.50", 9.999: "10.00", 230: "230.0", 1234.5: "1234", 106600: "106600", -0.004: "-0.0040",
	} {
		assert.Equal(t, want, formatFloat(v), "%v", v)
	}
}

func TestWriteJSONRefusesNaN(t *testing.T) {
	var b strings.Builder
	require.NoError(t, WriteJSON(&b, map[string]float64{"x": 0.5}))
	assert.Equal(t, "{\n  \"x\": 0.5\n}\n", b.String())
	assert.Error(t, WriteJSON(&b, []float64{math.NaN()}))
	assert.Equal(t, 0.0, Finite(math.Inf(1)))
}
