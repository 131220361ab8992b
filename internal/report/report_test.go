package report

import (
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := WriteChart(tt.path, "t", "x", "y", false, tt.series)
			require.ErrorIs(t, err, ErrInvalidConfig)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestWriteChartWritesSVG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.svg")
	c := Chart{Title: "t", XLabel: "x", YLabel: "y", LogX: true,
		Series: []Series{{Name: "s", X: []float64{1, 2, 4}, Y: []float64{1, 2, 3}, Dashed: true, Color: 2}}}
	require.NoError(t, c.Write(path))
	assert.FileExists(t, path)
}
