package usl

import (
	"errors"
	"fmt"
	"math"
)

// ErrInvalidData is matched (errors.Is) by the errors of Add and Fit for data
// that cannot determine the model. Their messages say what is wrong and
// nothing more, no package prefix and no sentinel text, for a command to
// print after the name of the file the data came from.
var ErrInvalidData = errors.New("data cannot determine the model")

// dataError is an error matching ErrInvalidData whose message is its text.
type dataError string

func (e dataError) Error() string { return string(e) }

// Is reports whether target is ErrInvalidData.
func (e dataError) Is(target error) bool { return target == ErrInvalidData }

// Points is throughput measured at concurrencies, to fit. Measurements at one
// concurrency combine as they are added into their count and mean: the sum of
// squared errors of a model over the measurements is, but for a term the
// model does not change, the sum over concurrencies of count × (model −
// mean)², so the fit is the same and its cost grows with the distinct
// concurrencies only. The zero value is empty and ready to use.
type Points struct {
	index   map[float64]int // concurrency → its position in n
	n       []float64       // distinct concurrencies, in the order first added
	sum     []float64       // sum of the throughputs at n[i]
	count   []float64       // measurements at n[i]
	added   int             // measurements added
	lambda0 float64         // the largest X/N of any measurement
	first   float64         // the first throughput added
	flat    bool            // every throughput added is first
}

// Add adds a throughput x measured at concurrency n. It refuses a
// measurement with n or x not finite, n < 1 or x ≤ 0 (an error matching
// ErrInvalidData that gives both); p is then unchanged.
func (p *Points) Add(n, x float64) error {
	if math.IsNaN(n) || math.IsInf(n, 0) || n < 1 || math.IsNaN(x) || math.IsInf(x, 0) || x <= 0 {
		return dataError(fmt.Sprintf("N = %v, X = %v: want a finite concurrency N ≥ 1 and throughput X > 0", n, x))
	}
	if p.index == nil {
		p.index = map[float64]int{}
	}
	i, ok := p.index[n]
	if !ok {
		i = len(p.n)
		p.index[n] = i
		p.n, p.sum, p.count = append(p.n, n), append(p.sum, 0), append(p.count, 0)
	}
	p.sum[i] += x
	p.count[i]++
	if p.added == 0 {
		p.first, p.flat = x, true
	}
	p.flat = p.flat && x == p.first
	p.lambda0 = max(p.lambda0, x/n)
	p.added++
	return nil
}

// Len returns the number of measurements added.
func (p *Points) Len() int { return p.added }

// Concurrencies returns the number of distinct concurrencies measured.
func (p *Points) Concurrencies() int { return len(p.n) }

// Range returns the smallest and largest concurrency measured (0, 0 when
// none is), the range PeakNear takes.
func (p *Points) Range() (lo, hi float64) {
	for i, n := range p.n {
		if i == 0 || n < lo {
			lo = n
		}
		if i == 0 || n > hi {
			hi = n
		}
	}
	return lo, hi
}

// mean returns the mean throughput at the i-th concurrency.
func (p *Points) mean(i int) float64 {
	if p.count[i] == 1 {
		return p.sum[i] // exactly the one measurement
	}
	return p.sum[i] / p.count[i]
}
