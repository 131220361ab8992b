package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
)

// WriteJSON writes v as indented JSON followed by a newline. Numbers are
// encoding/json's (the shortest text that reads back as the same float64);
// a NaN or infinite float in v is an error, as JSON has no such numbers.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("report: JSON: %w", err)
	}
	return nil
}

// Finite returns v, or 0 for a NaN or infinite v: for figures that are
// undefined when nothing was measured (a share of no CPU time), which JSON
// cannot carry.
func Finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}
