package workload

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/mycnf"
	"github.com/innosim/innosim/sim/machine"
)

func TestIs55(t *testing.T) {
	for _, c := range []struct {
		srv  mycnf.Server
		want bool
	}{
		{mycnf.Server{Product: mycnf.MariaDB, Version: "5.5"}, true},
		{mycnf.Server{Product: mycnf.MariaDB, Version: "5.5.28"}, true},
		{mycnf.Server{Product: mycnf.MySQL, Version: "5.5"}, true},
		{mycnf.Server{Product: mycnf.MariaDB, Version: "10.0"}, false},
		{mycnf.Server{Product: mycnf.MySQL, Version: "5.6"}, false},
		{mycnf.Server{}, false},
	} {
		assert.Equal(t, c.want, Is55(c.srv), "%+v", c.srv)
	}
}

// programCPU sums a program's CPU bursts, counting OpReadView at one active
// transaction, and the acquisitions of each mutex by name.
func programCPU(m *machine.Machine, p []machine.Op) (time.Duration, map[string]int) {
	var d time.Duration
	locks := map[string]int{}
	for _, op := range p {
		switch op.Kind {
		case machine.OpCPU, machine.OpReadView:
			d += op.Dur
		case machine.OpLock:
			locks[m.Mutexes()[op.Arg].Name]++
		}
	}
	return d, locks
}

// A 5.5 server's point select takes LOCK_open twice, the MDL map's mutex
// once, the table's MDL lock twice and kernel_mutex twice, with the same CPU
// at one connection as the statement without them.
func TestPointSelect55TakesTheServersMutexes(t *testing.T) {
	w, err := Lookup("oltp_point_select")
	require.NoError(t, err)
	m0, err := machine.New(machine.Config{CPUs: 1})
	require.NoError(t, err)
	base, none := programCPU(m0, w.Setup(testEnv{m: m0}))
	assert.Empty(t, none)
	m, err := machine.New(machine.Config{CPUs: 1})
	require.NoError(t, err)
	cpu55, locks := programCPU(m, w.Setup(testEnv{m: m, srv: mycnf.Server{Product: mycnf.MariaDB, Version: "5.5"}}))
	assert.Equal(t, base, cpu55, "the sections' CPU comes out of the statement's budget")
	assert.Equal(t, map[string]int{"LOCK_open": 2, "MDL_map::m_mutex": 1, "MDL_lock::m_rwlock": 2, "kernel_mutex": 2}, locks)
}

// A 5.5 server's complex OLTP opens and closes the table under LOCK_open in
// each of its 19 table statements and holds one MDL ticket from the first
// to the commit, with the same CPU as without them.
func TestReadWrite55TakesTheServersMutexes(t *testing.T) {
	w, err := Lookup("oltp_read_write")
	require.NoError(t, err)
	m0, err := machine.New(machine.Config{CPUs: 1})
	require.NoError(t, err)
	base, locks0 := programCPU(m0, w.Setup(testEnv{m: m0}))
	m, err := machine.New(machine.Config{CPUs: 1})
	require.NoError(t, err)
	cpu55, locks := programCPU(m, w.Setup(testEnv{m: m, srv: mycnf.Server{Product: mycnf.MariaDB, Version: "5.5"}}))
	assert.Equal(t, base, cpu55)
	assert.Equal(t, 38, locks["LOCK_open"])
	assert.Equal(t, 1, locks["MDL_map::m_mutex"])
	assert.Equal(t, 2, locks["MDL_lock::m_rwlock"])
	assert.Equal(t, locks0["kernel_mutex"], locks["kernel_mutex"], "InnoDB's own sections as before")
	assert.Len(t, m.Mutexes(), len(m0.Mutexes())+3, "no second kernel_mutex")
}

// A 5.5 server's read view walks the other active transactions' lines at
// the machine's price, with no per-transaction CPU figure of its own.
func TestReadView55ReadsLines(t *testing.T) {
	for _, name := range []string{"oltp_point_select", "oltp_read_write"} {
		w, err := Lookup(name)
		require.NoError(t, err)
		m, err := machine.New(machine.Config{CPUs: 1})
		require.NoError(t, err)
		var views []machine.Op
		for _, op := range w.Setup(testEnv{m: m, srv: mycnf.Server{Product: mycnf.MariaDB, Version: "5.5"}}) {
			if op.Kind == machine.OpReadView {
				views = append(views, op)
			}
		}
		assert.Equal(t, []machine.Op{{Kind: machine.OpReadView, Arg: viewLines}}, views, name)
	}
}
