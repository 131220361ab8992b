package sim

import (
	"fmt"

	"github.com/innosim/innosim/concurrency"
	"github.com/innosim/innosim/mycnf"
)

// CellFromSettings builds a cell for workload from a MySQL option file's
// settings (package mycnf): innodb_sync_spin_loops → Machine.SpinLoops; thread
// priorities → Machine.Priorities; innodb_thread_concurrency and its tickets and
// sleep delays → a Queue gate (none when the limit is 0; Cell.Validate refuses
// a gate for a workload that never enters InnoDB, connect);
// innodb_flush_log_at_trx_commit → Log; innodb_read_io_threads,
// innodb_write_io_threads, innodb_use_native_aio and the page size → the AIO
// array (mycnf's AIOConfig), for a workload that submits AIO (Workload.Uses.AIO);
// thread_handling → ThreadHandling (ParseThreadHandling). The caller sets Threads and
// Machine.CPUs (and may change anything else). Errors are mycnf's, wrapped.
func CellFromSettings(s mycnf.Settings, workload string) (Cell, error) {
	w, err := LookupWorkload(workload)
	if err != nil {
		return Cell{}, err
	}
	if s.SyncSpinLoops > 10000 {
		return Cell{}, fmt.Errorf("sim: innodb_sync_spin_loops = %d, want 0..10000: %w", s.SyncSpinLoops, ErrInvalidConfig)
	}
	c := Cell{Workload: workload, Machine: MachineConfig{
		Costs: OldKernel(), SpinLoops: int(s.SyncSpinLoops), Priorities: s.ThreadPriority,
	}}
	if s.FlushLogAtTrxCommit < 0 || s.FlushLogAtTrxCommit > 2 {
		return Cell{}, fmt.Errorf("sim: innodb_flush_log_at_trx_commit = %d, want 0..2: %w", s.FlushLogAtTrxCommit, ErrInvalidConfig)
	}
	c.Log = &LogConfig{FlushAtTrxCommit: s.FlushLogAtTrxCommit}
	c.BufferPool = s.BufferPoolSize
	if s.ThreadHandling != "" { // a Settings built by hand may leave it empty: the default
		th, err := ParseThreadHandling(s.ThreadHandling)
		if err != nil {
			return Cell{}, err
		}
		c.ThreadHandling = th
	}
	if s.ThreadConcurrency > 0 {
		cc, err := s.ConcurrencyConfig()
		if err != nil {
			return Cell{}, fmt.Errorf("sim: %w", err)
		}
		c.Gate = &GateConfig{Policy: concurrency.PolicyQueue, Config: cc}
	}
	if w.Uses.AIO {
		ac, err := s.AIOConfig()
		if err != nil {
			return Cell{}, fmt.Errorf("sim: %w", err)
		}
		c.AIO = &ac
	}
	return c, nil
}
