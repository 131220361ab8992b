package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/concurrency"
)

// TestHandoffBargingRunsInTheSimulator drives Handoff's barging mode through the
// simulator's gate driver, whose parked threads must call Enter again when they
// are woken to compete (Release outcome Woken) rather than handed a seat, and
// must not sleep if that wake lands before their wait does. With 64 clients
// and 2 seats, barging must keep the cores as busy as the strict handoff and
// switch context less per unit (a lost wake stalls the gate: seats free,
// waiters asleep).
func TestHandoffBargingRunsInTheSimulator(t *testing.T) {
	run := func(starvation time.Duration) Result {
		cfg := concurrency.DefaultConfig(2)
		cfg.SleepDelay = 0
		cfg.Starvation = starvation
		cell := Cell{Workload: "slap_select", Threads: 64, Gate: &GateConfig{Policy: concurrency.PolicyHandoff, Config: cfg},
			Machine: MachineConfig{CPUs: 4, Scheduler: CFS, Costs: OldKernel(), SpinLoops: DefaultSpinLoops},
			Warmup:  5 * time.Millisecond, Measure: 20 * time.Millisecond}
		r, err := cell.Run(t.Context())
		require.NoError(t, err)
		require.NotZero(t, r.Units)
		return r
	}
	strict, barging := run(0), run(time.Millisecond)
	perUnit := func(r Result) float64 { return float64(r.Switches) / float64(r.Units) }
	t.Logf("busy %.2f vs %.2f", float64(strict.Busy())/float64(strict.Capacity), float64(barging.Busy())/float64(barging.Capacity))
	t.Logf("switches/unit: strict %.2f, barging %.2f; units: %d vs %d",
		perUnit(strict), perUnit(barging), strict.Units, barging.Units)
	require.GreaterOrEqual(t, barging.Units, strict.Units*9/10, "barging must not stall the gate")
	require.Less(t, perUnit(barging), perUnit(strict))
}
