package redolog

import (
	"fmt"
	"time"

	"github.com/innosim/innosim/prio"
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
	// SrwMutex makes log_sys's mutex MariaDB 10.6's srw_mutex, which waits
	// on its futex without a yield and whose release wakes one waiter
	// (futex_wake(1)), instead of an InnoDB 5.x mutex, which yields before
	// it waits and whose release wakes every waiter (os_event_set).
	SrwMutex bool
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
	bg    bool   // the master thread's once-a-second flush (MasterFlush)
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
	lgMaster                   // the master thread, mutex held: write and fsync, or nothing
)

// Costs of the log path beyond the system-call entries; lockWait is the
// kernel work of a wait or wake of no_flush_event beyond the entry.
const (
	lockWait      = 500 * time.Nanosecond
	logRecordWork = 1 * time.Microsecond // mtr_commit of the commit record: copy into log_sys->buf
	logWriteWork  = 5 * time.Microsecond // log_group_write_buf's write into the OS page cache (pwrite)
)

// MasterFlush is OpLogCommit's Arg for the master thread's flush of the
// log buffer (MasterInterval).
const MasterFlush = 1

// MasterInterval is how often InnoDB's master thread writes and fsyncs the
// log buffer: srv_master_thread's one-second loop calls
// srv_sync_log_buffer_in_background (log_buffer_sync_in_background in 5.5;
// innodb_flush_log_at_timeout, default 1 s, from 5.6 and MariaDB 10.0 on),
// log_write_up_to(lsn, LOG_NO_WAIT, TRUE).
const MasterInterval = time.Second

// Install installs log_sys on m with its mutex (an InnoDB mutex, log_sys)
// and the commit setting cfg; with innodb_flush_log_at_trx_commit = 1 a
// commit fsyncs the log on dev, which must then not be nil. With 0 and 2 it
// adds the master thread, which writes and fsyncs the log every
// MasterInterval (with 1 every commit has flushed its record, and the
// master's flush finds nothing to do, so it is not added); without a
// device its fsync is counted (Machine.CountIO) and takes no time.
// Workloads commit with OpLogCommit. It returns an error wrapping
// ErrInvalidConfig for a bad setting.
func Install(m *machine.Machine, cfg Config, dev *device.Device) (*Log, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	l := &Log{m: m, dev: dev, cfg: cfg, mutex: m.AddMutex(machine.Mutex{Name: "log_sys", Spin: true, WakeAll: !cfg.SrwMutex, NoYield: cfg.SrwMutex})}
	m.Handle(machine.OpLogCommit, l)
	if cfg.FlushAtTrxCommit != 1 {
		master := []machine.Op{{Kind: machine.OpSleep, Dur: MasterInterval, Arg: machine.SleepThink}, {Kind: machine.OpLogCommit, Arg: MasterFlush}}
		if err := m.AddThread(master, prio.Normal); err != nil {
			return nil, err
		}
	}
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
//
// The master thread's MasterFlush is log_write_up_to(lsn, LOG_NO_WAIT,
// TRUE): under the mutex, nothing to do if the log is written and flushed
// up to the last lsn or a write is in progress (it does not wait); else the
// same write, and the fsync whatever the setting.
func (l *Log) Step(id int32, op *machine.Op) bool {
	m := l.m
	lt := l.thread(id)
	if lt.stage == lgStart {
		lt.bg = op.Arg == MasterFlush
	}
	flush := l.cfg.FlushAtTrxCommit == 1 || lt.bg
	for {
		switch lt.stage {
		case lgStart:
			if !m.Lock(id, l.mutex) {
				return false
			}
			lt.stage = lgDecide
			if lt.bg {
				lt.stage = lgMaster
				continue
			}
			if !lt.retry {
				l.lsn++
				lt.lsn = l.lsn
				l.Commits++
			}
			m.Burst(id, m.Jitter(logRecordWork), machine.CatUser)
			return false
		case lgMaster:
			lt.stage = lgRelease
			if !l.pending && (l.written < l.lsn || l.flushed < l.lsn) {
				l.startWrite(id, true)
				lt.stage = lgWritten
				return false
			}
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
				l.startWrite(id, flush)
				lt.stage = lgWritten
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
			if l.dev == nil { // the master thread's fsync without a device
				m.CountIO(machine.IOFsync, 1)
				continue
			}
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
				m.WaitBegin(id, machine.WaitGroupCommit)
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

// startWrite starts a write of the log buffer up to the last lsn, and its
// fsync when flush: the write into the log file (a system call into the
// page cache) is charged to thread id with the mutex held.
func (l *Log) startWrite(id int32, flush bool) {
	l.pending = true
	l.Writes++
	l.writeLsn = l.lsn
	if flush {
		l.flushLsn = l.lsn
	}
	l.m.Syscall(id, int64(l.m.Costs().Syscall)+l.m.Jitter(logWriteWork))
}

// wakeAll charges thread id one FUTEX_WAKE of every waiter of
// no_flush_event: the system-call entry and the wake's kernel work for each
// waiter.
func (l *Log) wakeAll(id int32) {
	n := int64(len(l.waiters))
	l.m.Syscall(id, int64(l.m.Costs().Syscall)+n*int64(lockWait))
}
