package bufpool_test

import (
	"testing"

	"github.com/innosim/innosim/sim/internal/simtest"
)

// TestScenarios runs testdata/frames.txt: each scenario and the summary of its
// run (rewritten with -update).
func TestScenarios(t *testing.T) { simtest.Run(t, "testdata/frames.txt") }
