package redolog

import (
	"fmt"
	"time"

	"github.com/innosim/innosim/sim/device"
	"github.com/innosim/innosim/sim/machine"
)

// Config is the redo log's commit setting.
type Config struct {
	// FlushAtTrxCommit is innodb_flush_log_at_trx_commit: 1 writes the log
	// and fsyncs it at every commit (the default, durable); 2 writes it to
	// the operating system at every commit and fsyncs it only once a second;
	// 0 does neither at commit (the master thread writes and fsyncs once a
	// second). Range 0..2.
	FlushAtTrxCommit int
}

// DefaultConfig is MySQL's default: innodb_flush_log_at_trx_commit = 1.
var DefaultConfig = Config{FlushAtTrxCommit: 1}

// Validate reports a setting out of range, wrapping ErrInvalidConfig.
func (c Config) Validate() error {
	if c.FlushAtTrxCommit < 0 || c.FlushAtTrxCommit > 2 {
		return machine.Invalid("FlushAtTrxCommit", "sim: innodb_flush_log_at_trx_commit = %d, want 0..2: %w", c.FlushAtTrxCommit, machine.ErrInvalidConfig)
	}
	return nil
}

// Log is InnoDB's log_sys as log_write_up_to sees it (log0log.c, MySQL
// 5.1): the last lsn given out, the lsn written and the one flushed to disk,
// whether a write (and flush) is in progress (n_pending_writes) up to which
// lsn (write_lsn, current_flush_lsn), and the threads waiting on
// no_flush_event. lsn counts commit records: one per transaction.
type Log struct {
	m                               *machine.Machine
	dev                             *device.Device // the device the log is fsynced on, or nil
	cfg                             Config
	mutex                           int32 // log_sys->mutex
	lsn, written, flushed           int64
	pending                         bool
	writeLsn, flushLsn              int64
	gen                             uint64 // bumped at every os_event_set(no_flush_event)
	waiters                         []int32
	th                              []logThread // by thread id, grown on demand
	Writes, GroupedCommits, Commits uint64
}

// logThread is one thread's progress through OpLogCommit.
type logThread struct {
	stage logStage
	lsn   int64  // the commit record's lsn
	retry bool   // woken from the no_flush_event wait: start over (goto loop)
	gen   uint64 // Log.gen when the wait was decided
}

type logStage uint8

const (
	lgStart    logStage = iota // take log_sys->mutex
	lgDecide                   // mutex held, the commit record copied: return, wait, or write
	lgWritten                  // the write into the log file charged: release the mutex
	lgUnlocked                 // released after the write: fsync, or finish
	lgFsync                    // the fsync's system-call entry charged: wait for the device
	lgFlushed                  // the fsync done: take the mutex again
	lgFinish                   // mutex held: clear the pending write, wake the waiters
	lgRelease                  // release the mutex at the end
	lgWake                     // the wake of no_flush_event's waiters charged
	lgWaitExit                 // release the mutex before the wait
	lgWait                     // the futex wait's entry charged: sleep unless the event was set
	lgAsleep                   // asleep on no_flush_event
)

// Costs of the log path beyond the system-call entries; lockWait is the
// kernel work of a wait or wake of no_flush_event beyond the entry.
const (
	lockWait      = 500 * time.Nanosecond
	logRecordWork = 1 * time.Microsecond // mtr_commit of the commit record: copy into log_sys->buf
	logWriteWork  = 5 * time.Microsecond // log_group_write_buf's write into the OS page cache (pwrite)
)

// Install installs log_sys on m with its mutex (an InnoDB mutex, log_sys)
// and the commit setting cfg; with innodb_flush_log_at_trx_commit = 1 a
// commit fsyncs the log on dev, which must then not be nil. Workloads commit
// with OpLogCommit. It returns an error wrapping ErrInvalidConfig for a bad
// setting.
func Install(m *machine.Machine, cfg Config, dev *device.Device) (*Log, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	l := &Log{m: m, dev: dev, cfg: cfg, mutex: m.AddMutex(machine.Mutex{Name: "log_sys", Spin: true, WakeAll: true})}
	m.Handle(machine.OpLogCommit, l)
	return l, nil
}

// Mutex returns log_sys->mutex, which a workload's mini-transactions take.
func (l *Log) Mutex() int32 { return l.mutex }

// Stats returns the log writes started, the commits and how many of those
// found their record already written or flushed by another thread's write
// (group commit).
func (l *Log) Stats() (writes, commits, grouped uint64) {
	return l.Writes, l.Commits, l.GroupedCommits
}

// CheckOp refuses a commit that fsyncs the log without a device to fsync on.
func (l *Log) CheckOp(machine.Op) error {
	if l.cfg.FlushAtTrxCommit == 1 && l.dev == nil {
		return fmt.Errorf("sim: a commit with innodb_flush_log_at_trx_commit = 1 fsyncs the log, want a device installed by SetDevice: %w", machine.ErrInvalidConfig)
	}
	return nil
}

func (l *Log) thread(id int32) *logThread {
	for int(id) >= len(l.th) {
		l.th = append(l.th, logThread{})
	}
	return &l.th[id]
}

// Step runs OpLogCommit: the commit record and log_write_up_to(lsn,
// LOG_WAIT_ALL_GROUPS, flush) of trx_commit_off_kernel in MySQL 5.1, by
// innodb_flush_log_at_trx_commit. Under log_sys->mutex the record gets the
// next lsn; with 0 the commit returns. Otherwise, if the lsn is written (2)
// or flushed (1) already, it returns: another commit's write covered it
// (group commit). If a write is in progress that will cover it, the thread
// waits for it on no_flush_event and returns; if one is in progress that
// will not, it waits and starts over. Else it starts the write itself: the
// whole buffer up to the latest lsn is written into the log file (a system
// call into the page cache) with the mutex held; the mutex is released; with
// 1 the file is fsynced on the device (fil_flush); the mutex is taken again,
// the write marked done and every waiter woken (os_event_set). It reports
// whether the thread goes on.
func (l *Log) Step(id int32, _ *machine.Op) bool {
	m := l.m
	lt := l.thread(id)
	flush := l.cfg.FlushAtTrxCommit == 1
	for {
		switch lt.stage {
		case lgStart:
			if !m.Lock(id, l.mutex) {
				return false
			}
			lt.stage = lgDecide
			if !lt.retry {
				l.lsn++
				lt.lsn = l.lsn
				l.Commits++
			}
			m.Burst(id, m.Jitter(logRecordWork), machine.CatUser)
			return false
		case lgDecide:
			lt.retry = false
			done := l.written >= lt.lsn
			if flush {
				done = l.flushed >= lt.lsn
			}
			switch {
			case l.cfg.FlushAtTrxCommit == 0:
				lt.stage = lgRelease
			case done:
				l.GroupedCommits++
				lt.stage = lgRelease
			case l.pending:
				covers := l.writeLsn >= lt.lsn
				if flush {
					covers = l.flushLsn >= lt.lsn
				}
				if covers {
					l.GroupedCommits++
				}
				lt.retry = !covers
				lt.gen = l.gen
				l.waiters = append(l.waiters, id)
				lt.stage = lgWaitExit
			default:
				l.pending = true
				l.Writes++
				l.writeLsn = l.lsn
				if flush {
					l.flushLsn = l.lsn
				}
				lt.stage = lgWritten
				m.Syscall(id, int64(m.Costs().Syscall)+m.Jitter(logWriteWork))
				return false
			}
		case lgWritten:
			l.written = max(l.written, l.writeLsn)
			if !m.Unlock(id, l.mutex) {
				return false
			}
			lt.stage = lgUnlocked
		case lgUnlocked:
			if !flush {
				lt.stage = lgFlushed
				continue
			}
			lt.stage = lgFsync
			m.Syscall(id, int64(m.Costs().Syscall))
			return false
		case lgFsync:
			lt.stage = lgFlushed
			l.dev.IO(id, machine.IOFsync)
			return false
		case lgFlushed:
			if flush {
				l.flushed = max(l.flushed, l.flushLsn)
			}
			if !m.Lock(id, l.mutex) {
				return false
			}
			lt.stage = lgFinish
		case lgFinish:
			l.pending = false
			l.gen++
			if len(l.waiters) == 0 {
				lt.stage = lgRelease
				continue
			}
			lt.stage = lgWake
			l.wakeAll(id)
			return false
		case lgWake:
			for _, w := range l.waiters {
				if wt := l.thread(w); wt.stage == lgAsleep && m.Blocked(w) {
					m.Wake(w)
				}
			}
			l.waiters = l.waiters[:0]
			lt.stage = lgRelease
		case lgRelease:
			if !m.Unlock(id, l.mutex) {
				return false
			}
			lt.stage = lgStart
			return true
		case lgWaitExit:
			if !m.Unlock(id, l.mutex) {
				return false
			}
			lt.stage = lgWait
			m.Syscall(id, int64(m.Costs().Syscall)+int64(lockWait))
			return false
		case lgWait:
			lt.stage = lgAsleep
			if lt.gen == l.gen { // not set since the wait was decided
				m.Block(id)
				m.WaitBegin(id) // group_commit_lock::acquire's THD_WAIT_GROUP_COMMIT
				return false
			}
		case lgAsleep:
			m.WaitEnd(id)
			if lt.retry {
				lt.stage = lgStart
				continue
			}
			lt.stage = lgStart
			return true
		}
	}
}

// wakeAll charges thread id one FUTEX_WAKE of every waiter of
// no_flush_event: the system-call entry and the wake's kernel work for each
// waiter.
func (l *Log) wakeAll(id int32) {
	n := int64(len(l.waiters))
	l.m.Syscall(id, int64(l.m.Costs().Syscall)+n*int64(lockWait))
}
