package study

import (
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/internal/validate"
)

// Issue 7: the same seed gives byte-identical output across GOMAXPROCS values.
// Cells run in parallel (RunCells), so a result that depended on which cell
// finished first, or on shared state between cells, would differ here. Study
// A has the most cells (144); it runs quick (validate.Quick), whose cells are
// the whole study's.
func TestStudyOutputIsTheSameAtAnyGOMAXPROCS(t *testing.T) {
	if raceEnabled {
		t.Skip("-race: three study runs take 20 s; CI runs go test ./sim without -race too")
	}
	run := func(procs int) string {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		rep, err := studyA().Run(validate.Quick(context.Background()), Options{Seed: 3})
		require.NoError(t, err)
		var b bytesWriter
		for _, tb := range rep.Tables {
			require.NoError(t, tb.WriteText(&b))
			require.NoError(t, tb.WriteCSV(&b))
		}
		return string(b) + rep.Verdict()
	}
	one := run(1)
	require.Equal(t, one, run(4))
	require.Equal(t, one, run(2))
}
