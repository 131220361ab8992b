package calibrate

import (
	"fmt"
	"strings"
)

// NoisySpread is the spread (Measurement.Spread) past which a figure is
// noisy: the middle half of its measurements spans more than ±25% of their
// median, so that the median itself is not known to better than that. On a
// quiet machine every figure's spread is a few percent; other load on the
// cores (a second program, a build) spreads them first.
const NoisySpread = 0.25

// Spread returns half the interquartile range relative to the median,
// (Q3 − Q1) / 2 / Median: 0.1 means the middle half of the measurements
// lies within about ±10% of the figure. It is 0 for fewer than two
// measurements or a median that is not positive.
func (m Measurement) Spread() float64 {
	if m.Repeats < 2 || m.Median <= 0 {
		return 0
	}
	return float64(m.Q3-m.Q1) / 2 / float64(m.Median)
}

// Spread returns half the interquartile range relative to the median, as
// Measurement.Spread does.
func (s Share) Spread() float64 {
	if s.Repeats < 2 || s.Median <= 0 {
		return 0
	}
	return (s.Q3 - s.Q1) / 2 / s.Median
}

// Noisy returns each figure of c whose spread is past NoisySpread, as
// "name ±NN%", in the order of the table (WriteTable); none on a quiet
// machine.
func (c Costs) Noisy() []string {
	var out []string
	for _, r := range c.rows() {
		s := r.m.Spread()
		if r.share != nil {
			s = r.share.Spread()
		}
		if s > NoisySpread {
			out = append(out, fmt.Sprintf("%s ±%.0f%%", r.name, 100*s))
		}
	}
	return out
}

// Load is how busy the machine was while measured: the 1-minute load
// average (runnable and uninterruptible tasks, /proc/loadavg; negative
// where the system does not give it) and the CPUs this process may use.
type Load struct {
	Average float64
	CPUs    int
}

// Busy reports whether the load average is past twice the CPUs: as many
// tasks again as there are cores waited for one, besides the probes' own.
func (l Load) Busy() bool { return l.CPUs > 0 && l.Average > 2*float64(l.CPUs) }

// String returns "load average 28.62 on 2 CPUs", or "" where the system
// gives no load average (and for the zero Load: none was taken).
func (l Load) String() string {
	if l.Average < 0 || l.CPUs == 0 {
		return ""
	}
	return fmt.Sprintf("load average %.2f on %d CPUs", l.Average, l.CPUs)
}

// busyWarning is what calibrate says of costs measured on a busy machine:
// a line naming the load (when Busy) and the noisy figures, or "" when
// there is neither. out is the -out file the profile goes to ("" for none).
func busyWarning(c Costs, out string) string {
	noisy := c.Noisy()
	if len(noisy) == 0 && !c.Load.Busy() {
		return ""
	}
	var why []string
	if c.Load.Busy() {
		why = append(why, c.Load.String())
	}
	if len(noisy) > 0 {
		why = append(why, fmt.Sprintf("%d of %d figures spread past ±%.0f%% between their measurements: %s",
			len(noisy), len(c.rows()), 100*NoisySpread, strings.Join(noisy, ", ")))
	}
	msg := "innosim calibrate: warning: this machine was busy while measured (" + strings.Join(why, "; ") + "): the costs carry that noise"
	if out != "" {
		msg += ", and so does the profile written to " + out + " (its header says so)"
	}
	return msg + "; measure again on a quiet machine"
}
