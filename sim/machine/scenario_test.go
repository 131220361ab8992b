package machine_test

import (
	"testing"

	"github.com/innosim/innosim/sim/internal/simtest"
)

// TestScenarios runs testdata/mutex.txt: each scenario and the summary of its
// run (rewritten with -update).
func TestScenarios(t *testing.T) { simtest.Run(t, "testdata/mutex.txt") }
