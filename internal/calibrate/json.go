package calibrate

import (
	"math"
	"time"
)

// runJSON is what calibrate -json writes: the costs, the noisy figures
// (Costs.Noisy) and, with -check, the check.
type runJSON struct {
	Costs costsJSON  `json:"costs"`
	Noisy []string   `json:"noisy,omitempty"`
	Check *checkJSON `json:"check,omitempty"`
}

// costsJSON is Costs as -json writes it: a figure per row of the table, in
// its order, the caches (bytes; null where sysfs does not say) and the load
// the measurement ended under (null where the system does not give it).
type costsJSON struct {
	Figures       []figureJSON `json:"figures"`
	CacheL2Bytes  *int64       `json:"cache_l2_bytes"`
	CacheLLCBytes *int64       `json:"cache_llc_bytes"`
	LoadAverage   *float64     `json:"load_average"`
	CPUs          int          `json:"cpus"`
}

// figureJSON is one cost: a Measurement in nanoseconds, or a Share (unit
// "share", 0..1). A figure whose probe did not run (Repeats 0: a ring past
// -max-ring, a probe this machine cannot run) has measured false and null
// figures, never zeros that read as a measured cost of nothing.
type figureJSON struct {
	Name     string   `json:"name"`
	Unit     string   `json:"unit"`
	Measured bool     `json:"measured"`
	Median   *float64 `json:"median"`
	Q1       *float64 `json:"q1"`
	Q3       *float64 `json:"q3"`
	Min      *float64 `json:"min"`
	Max      *float64 `json:"max"`
	Repeats  int      `json:"repeats"`
}

// costsJSONOf returns c as costsJSON.
func costsJSONOf(c Costs) costsJSON {
	js := costsJSON{Figures: []figureJSON{}, CPUs: c.Load.CPUs}
	for _, r := range c.rows() {
		f := figureJSON{Name: r.name, Unit: "ns"}
		var vals [5]float64
		if r.share != nil {
			f.Unit, f.Repeats = "share", r.share.Repeats
			vals = [5]float64{r.share.Median, r.share.Q1, r.share.Q3, r.share.Min, r.share.Max}
		} else {
			f.Repeats = r.m.Repeats
			for i, d := range []time.Duration{r.m.Median, r.m.Q1, r.m.Q3, r.m.Min, r.m.Max} {
				vals[i] = float64(d.Nanoseconds())
			}
		}
		if f.Measured = f.Repeats > 0; f.Measured {
			f.Median, f.Q1, f.Q3, f.Min, f.Max = orNull(vals[0]), orNull(vals[1]), orNull(vals[2]), orNull(vals[3]), orNull(vals[4])
		}
		js.Figures = append(js.Figures, f)
	}
	if c.CacheL2 > 0 {
		js.CacheL2Bytes = &c.CacheL2
	}
	if c.CacheLLC > 0 {
		js.CacheLLCBytes = &c.CacheLLC
	}
	if c.Load.Average >= 0 && c.Load.CPUs > 0 {
		js.LoadAverage = orNull(c.Load.Average)
	}
	return js
}

// orNull returns v, or nil (JSON's null) for a NaN or infinite v, which JSON
// has no number for.
func orNull(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}
