package workload

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/sim/machine"
)

// The connect cycle's calls are tagged by the path each takes: its accept4,
// shutdown and close are connection setup, its reads and writes are on an
// open socket; a point select makes only socket calls.
func TestWorkloadsTagTheirCallsByKind(t *testing.T) {
	count := func(name string) map[machine.SyscallKind]int {
		w, err := Lookup(name)
		require.NoError(t, err)
		m, err := machine.New(machine.Config{CPUs: 1})
		require.NoError(t, err)
		n := map[machine.SyscallKind]int{}
		for _, op := range w.Setup(testEnv{m: m}) {
			if op.Kind == machine.OpSyscall {
				n[machine.SyscallKind(op.Arg)]++
			}
		}
		return n
	}
	assert.Equal(t, map[machine.SyscallKind]int{machine.SysOther: 9, machine.SysSocket: 6, machine.SysSetup: 3}, count("connect"))
	assert.Equal(t, map[machine.SyscallKind]int{machine.SysSocket: 2}, count("oltp_point_select"))
}
