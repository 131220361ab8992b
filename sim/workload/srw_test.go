package workload

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/mycnf"
	"github.com/innosim/innosim/sim/machine"
	"github.com/innosim/innosim/sim/rowlock"
)

func TestIsSrw(t *testing.T) {
	for _, c := range []struct {
		srv  mycnf.Server
		want bool
	}{
		{mycnf.Server{Product: mycnf.MariaDB, Version: "10.6"}, true},
		{mycnf.Server{Product: mycnf.MariaDB, Version: "11.8"}, true},
		{mycnf.Server{Product: mycnf.MariaDB, Version: "10.5"}, false},
		{mycnf.Server{Product: mycnf.MariaDB, Version: "5.5"}, false},
		{mycnf.Server{Product: mycnf.MySQL, Version: "8.0"}, false},
		{mycnf.Server{}, false},
	} {
		assert.Equal(t, c.want, IsSrw(c.srv), "%+v", c.srv)
	}
}

// On MariaDB 10.6 on, complex OLTP takes no kernel_mutex, no buf_pool mutex
// and no global mutex for a row lock, and reserves each mini-transaction's
// lsn under an srw_mutex of its own; the statements' CPU is the 5.1
// program's.
func TestReadWriteSrwTakesNoGlobalMutexOnItsPath(t *testing.T) {
	w, err := Lookup("oltp_read_write")
	require.NoError(t, err)
	m0, err := machine.New(machine.Config{CPUs: 1})
	require.NoError(t, err)
	base, _ := programCPU(m0, w.Setup(testEnv{m: m0}))
	m, err := machine.New(machine.Config{CPUs: 1})
	require.NoError(t, err)
	p := w.Setup(testEnv{m: m, srv: mycnf.Server{Product: mycnf.MariaDB, Version: "11.8"}})
	cpuSrw, locks := programCPU(m, p)
	assert.Equal(t, base, cpuSrw, "the same CPU, no longer under global mutexes")
	assert.Zero(t, locks["kernel_mutex"])
	assert.Zero(t, locks["buf_pool"])
	assert.Zero(t, locks["log_sys"], "the log write's lock is not the lsn's reservation's")
	assert.Equal(t, 9, locks["log_sys.lsn_lock"], "one reservation a row change")
	for _, mu := range m.Mutexes() {
		if mu.Name == "log_sys.lsn_lock" {
			assert.True(t, mu.Spin && mu.NoYield && !mu.WakeAll, "srw_mutex: %+v", mu)
		}
	}
	var views int
	for _, op := range p {
		if op.Kind == machine.OpRowLock || op.Kind == machine.OpLockRelease {
			assert.Equal(t, int32(rowlock.NoMutex), op.Arg, "row locks under no global mutex")
		}
		if op.Kind == machine.OpReadView {
			views++
			assert.Equal(t, int32(viewLines), op.Arg, "rw_trx_hash's walk at the machine's line price")
		}
	}
	assert.Equal(t, 1, views)
}
