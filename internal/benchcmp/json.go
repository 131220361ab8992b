package benchcmp

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
)

// reportJSON is the report as innosim compare -json writes it: the files,
// the environment keys that differ, one entry per benchmark and unit, the
// benchmarks in one file only and the verdict.
type reportJSON struct {
	Old        string        `json:"old"`
	New        string        `json:"new"`
	OldResults int           `json:"old_results"`
	NewResults int           `json:"new_results"`
	EnvDiffs   []envDiffJSON `json:"env_diffs,omitempty"`
	Changes    []changeJSON  `json:"changes"`
	OnlyOld    []string      `json:"only_old,omitempty"`
	OnlyNew    []string      `json:"only_new,omitempty"`
	Verdict    Verdict       `json:"verdict"`
}

// envDiffJSON is an EnvDiff: a key's values in each file (none: the file
// lacks the key).
type envDiffJSON struct {
	Key string   `json:"key"`
	Old []string `json:"old"`
	New []string `json:"new"`
}

// changeJSON is a Change: the benchmark (and its name in the old file when
// another -GOMAXPROCS suffix paired them), the unit, each side's center
// (median) and sample count, the ratio new/old and its interval (no hi when
// the interval is unbounded), the Mann-Whitney p-value, the verdict, and the
// warnings' text. A figure that is not finite is left out.
type changeJSON struct {
	Benchmark    string   `json:"benchmark"`
	OldBenchmark string   `json:"old_benchmark,omitempty"`
	Unit         string   `json:"unit"`
	Old          *float64 `json:"old,omitempty"`
	New          *float64 `json:"new,omitempty"`
	OldN         int      `json:"old_n"`
	NewN         int      `json:"new_n"`
	Ratio        *float64 `json:"ratio,omitempty"`
	Lo           *float64 `json:"lo,omitempty"`
	Hi           *float64 `json:"hi,omitempty"`
	P            *float64 `json:"p,omitempty"`
	Verdict      Verdict  `json:"verdict"`
	Warnings     []string `json:"warnings,omitempty"`
}

// finite returns &v, or nil for a NaN or infinite v, which JSON cannot carry.
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// WriteJSON writes the report as indented JSON (reportJSON's fields).
func (r *Report) WriteJSON(w io.Writer) error {
	js := reportJSON{Old: r.OldName, New: r.NewName, OldResults: r.OldResults, NewResults: r.NewResults,
		Changes: []changeJSON{}, Verdict: r.Verdict}
	for _, d := range r.EnvDiffs {
		js.EnvDiffs = append(js.EnvDiffs, envDiffJSON(d))
	}
	for _, c := range r.Changes {
		cj := changeJSON{Benchmark: c.Key.String(), Unit: c.Unit, Old: finite(c.Old.Center), New: finite(c.New.Center),
			OldN: c.OldN, NewN: c.NewN, Ratio: finite(c.Ratio), Lo: finite(c.Lo), Hi: finite(c.Hi), P: finite(c.P), Verdict: c.Verdict}
		if c.OldKey != (Key{}) && c.OldKey != c.Key {
			cj.OldBenchmark = c.OldKey.String()
		}
		for _, w := range c.Warnings {
			cj.Warnings = append(cj.Warnings, w.Error())
		}
		js.Changes = append(js.Changes, cj)
	}
	for _, k := range r.OnlyOld {
		js.OnlyOld = append(js.OnlyOld, k.String())
	}
	for _, k := range r.OnlyNew {
		js.OnlyNew = append(js.OnlyNew, k.String())
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(js); err != nil {
		return fmt.Errorf("benchcmp: write JSON: %w", err)
	}
	return nil
}
