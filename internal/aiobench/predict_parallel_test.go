package aiobench

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/aio"
)

// TestPredictAIOWakeDoesNotDependOnGOMAXPROCS: Predict runs its seeded
// runs in parallel, at most GOMAXPROCS at a time, and must give the same
// prediction, bit for bit, whether they run one at a time or side by side, and
// twice in a row; more runs than Ps and an odd count make the scheduling uneven.
func TestPredictAIOWakeDoesNotDependOnGOMAXPROCS(t *testing.T) {
	for _, tc := range []struct {
		wake           aio.WakePolicy
		handlers, runs int
	}{
		{aio.WakeAll, 4, 7},
		{aio.WakeTargeted, 32, 5},
		{aio.WakeDeferred, 3, 3},
	} {
		t.Run(fmt.Sprintf("%s/handlers=%d/runs=%d", tc.wake, tc.handlers, tc.runs), func(t *testing.T) {
			cfg := Config{Wake: tc.wake, Handlers: tc.handlers, CPUs: 2, Costs: benchCosts(), Ops: 1000, Runs: tc.runs}
			var got []Prediction
			for _, procs := range []int{1, 2, 1, 2, 5} {
				prev := runtime.GOMAXPROCS(procs)
				p, err := Predict(cfg)
				runtime.GOMAXPROCS(prev)
				require.NoError(t, err)
				got = append(got, p)
			}
			for i := 1; i < len(got); i++ {
				require.Equal(t, got[0], got[i], "prediction %d differs from the first", i)
			}
			require.Positive(t, got[0].NsPerOp)
		})
	}
}
