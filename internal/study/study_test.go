package study

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/internal/validate"
	"github.com/innosim/innosim/sim"
)

// TestStudiesPassTheirChecks runs each study whole and holds it to its
// checks. Studies A and B take tens of seconds of CPU and run only with
// INNOSIM_FULL=1 (as .ci/run sets) and without the race detector; their
// code runs quick in every go test ./cmd/innosim (TestReproduceGolden).
func TestStudiesPassTheirChecks(t *testing.T) {
	for _, s := range All() {
		t.Run("study="+s.ID, func(t *testing.T) {
			if (s.ID == "a" || s.ID == "b") && (raceEnabled || os.Getenv("INNOSIM_FULL") != "1") {
				t.Skip("studies A and B take tens of seconds: set INNOSIM_FULL=1 (and no -race)")
			}
			rep, err := s.Run(context.Background(), Options{Seed: 1})
			require.NoError(t, err)
			require.NotEmpty(t, rep.Checks)
			for _, c := range rep.Checks {
				assert.True(t, c.Pass, "%s: %s", c.Name, c.Detail)
			}
			assert.Equal(t, "study "+strings.ToUpper(s.ID)+": PASS", rep.Verdict())
		})
	}
}

// TestStudyOutputIsDeterministic runs study A (quick: validate.Quick) twice at
// one seed and wants the same tables and verdict.
func TestStudyOutputIsDeterministic(t *testing.T) {
	if raceEnabled {
		t.Skip("-race: two study runs take half a minute; run go test ./sim")
	}
	run := func() string {
		rep, err := studyA().Run(validate.Quick(context.Background()), Options{Seed: 5})
		require.NoError(t, err)
		var b bytesWriter
		for _, tb := range rep.Tables {
			require.NoError(t, tb.WriteText(&b))
		}
		return string(b) + rep.Verdict()
	}
	assert.Equal(t, run(), run())
}

type bytesWriter []byte

func (b *bytesWriter) Write(p []byte) (int, error) { *b = append(*b, p...); return len(p), nil }

func TestLookupStudy(t *testing.T) {
	s, err := Lookup("B")
	require.NoError(t, err)
	assert.Equal(t, "b", s.ID)
	_, err = Lookup("e")
	assert.ErrorIs(t, err, sim.ErrInvalidConfig)
}

func TestReferenceDataIsEmbedded(t *testing.T) {
	for _, f := range []string{"study_a_priority_ratio.csv", "study_c_connect_qps.csv", "study_d_aio_wake.csv"} {
		h, rows, err := refTable(f)
		require.NoError(t, err, f)
		assert.NotEmpty(t, h)
		assert.NotEmpty(t, rows)
	}
}
