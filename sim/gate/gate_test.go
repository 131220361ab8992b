package gate

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/concurrency"
	"github.com/innosim/innosim/sim/machine"
)

// TestSetGateRefusesASecondGate: a machine has one innodb_thread_concurrency
// gate. A second SetGate replaced the first silently, leaving its
// kernel_mutex on the machine.
func TestSetGateRefusesASecondGate(t *testing.T) {
	m, err := machine.New(machine.Config{CPUs: 2})
	require.NoError(t, err)
	_, err = Install(m, concurrency.PolicyQueue, concurrency.DefaultConfig(2))
	require.NoError(t, err)
	_, err = Install(m, concurrency.PolicyAtomic, concurrency.DefaultConfig(2))
	require.ErrorIs(t, err, machine.ErrInvalidConfig)
	assert.ErrorContains(t, err, "SetGate called twice")
	assert.Len(t, m.Mutexes(), 1, "the first gate's kernel_mutex only")
}
