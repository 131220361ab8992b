package report

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Series is one line of a chart: Y against X, labelled Name. X and Y have the
// same length.
type Series struct {
	Name string
	X, Y []float64
	// Dashed draws the line dashed (published data beside simulated).
	Dashed bool
	// Color is 1 + an index into the chart palette, to give related series one
	// colour; 0 colours series by their position.
	Color int
}

// Chart describes a chart: its labels, whether X is on a log scale, and its
// series.
type Chart struct {
	Title, XLabel, YLabel string
	LogX                  bool
	Series                []Series
}

// Write draws c to path, as WriteChart.
func (c Chart) Write(path string) error {
	return WriteChart(path, c.Title, c.XLabel, c.YLabel, c.LogX, c.Series)
}

// palette is a fixed colour order so that charts are the same from run to run.
var palette = [...]color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0xff, 0x7f, 0x0e, 0xff}, {0x2c, 0xa0, 0x2c, 0xff}, {0xd6, 0x27, 0x28, 0xff},
	{0x94, 0x67, 0xbd, 0xff}, {0x8c, 0x56, 0x4b, 0xff}, {0xe3, 0x77, 0xc2, 0xff}, {0x7f, 0x7f, 0x7f, 0xff},
}

// WriteChart draws the series as lines with points through gonum/plot and
// saves the chart to path, 7 × 4.5 inches; the format follows the extension
// (.svg, .png, .pdf), and any other extension is an error wrapping
// ErrInvalidConfig. logX draws the X axis on a log scale (for thread counts
// 1, 2, 4, …): every X must then be positive, and a single X value is drawn
// on an axis from half of it to twice it. A series whose X and Y differ in
// length is an error.
func WriteChart(path, title, xLabel, yLabel string, logX bool, series []Series) error {
	if err := CheckChartPath(path); err != nil {
		return err
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	if logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	if logX {
		if err := fitLogX(p, series); err != nil {
			return err
		}
	}
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true
	for i, s := range series {
		if len(s.X) != len(s.Y) {
			return fmt.Errorf("report: chart series %q: %d X and %d Y values: %w", s.Name, len(s.X), len(s.Y), ErrInvalidConfig)
		}
		pts := make(plotter.XYs, len(s.X))
		for j := range s.X {
			pts[j].X, pts[j].Y = s.X[j], s.Y[j]
		}
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return fmt.Errorf("report: chart series %q: %w", s.Name, err)
		}
		c := palette[i%len(palette)]
		if s.Color > 0 {
			c = palette[(s.Color-1)%len(palette)]
		}
		l.Color, sc.Color = c, c
		if s.Dashed {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		}
		p.Add(l, sc)
		p.Legend.Add(s.Name, l, sc)
	}
	return p.Save(7*vg.Inch, 4.5*vg.Inch, path)
}

// CheckChartPath reports whether WriteChart can draw to path's format: its
// extension must be .svg, .png or .pdf (any case). It does not touch the file.
func CheckChartPath(path string) error {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".svg", ".png", ".pdf":
		return nil
	default:
		return fmt.Errorf("report: chart %s: extension %q, want .svg, .png or .pdf: %w", path, ext, ErrInvalidConfig)
	}
}

// fitLogX checks that every X of series can go on a log axis and, when they
// are all one value, gives the axis a range around it: gonum/plot widens a
// one-value range by one on either side, so a sweep of one thread count put
// 0 on the log axis and LogTicks panicked.
func fitLogX(p *plot.Plot, series []Series) error {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range series {
		for _, x := range s.X {
			if !(x > 0) || math.IsInf(x, 0) {
				return fmt.Errorf("report: chart series %q: X = %v on a log scale, want a finite X > 0: %w", s.Name, x, ErrInvalidConfig)
			}
			lo, hi = min(lo, x), max(hi, x)
		}
	}
	if lo == hi {
		p.X.Min, p.X.Max = lo/2, hi*2
	}
	return nil
}
