package device_test

import (
	"testing"

	"github.com/innosim/innosim/sim/internal/simtest"
)

// TestScenarios runs testdata/device.txt: each scenario and the summary of its
// run (rewritten with -update).
func TestScenarios(t *testing.T) { simtest.Run(t, "testdata/device.txt") }
