package threadpool

import (
	"time"

	"github.com/innosim/innosim/sim/machine"
)

// A pooled request that waits inside the server, and a group whose queue
// stops moving, follow MariaDB's sql/threadpool_generic.cc (Generic) or
// sql/threadpool_unix.cc of 5.5 to 10.1 (Unix55):
//
//   - wait_begin / wait_end (tp_wait_begin, reached through
//     thd_wait_begin): a worker about to wait stops counting as active; if
//     that leaves the group with no active worker and (Generic) its queue
//     holds a connection, or (Unix55) its queue is empty, or it has no
//     listener, wake_or_create_thread gives the group another worker. So
//     under Unix55 a worker that blocks while the queue holds requests and
//     a listener exists wakes nobody: the queue waits for the listener's
//     next event (which wakes a worker when none is active) or for
//     check_stall. wait_end counts the worker active again, so that, back
//     from its wait, it may run beside the worker that replaced it:
//     too_many_threads then keeps both from taking another request until
//     fewer than 1 + thread_pool_oversubscribe are active. Only the
//     outermost of nested waits counts.
//   - the waits bracketed are those the release's server brackets with
//     thd_wait_begin, and only those (docs/decisions/thd-wait-sites.md):
//     Generic (InnoDB 10.6 on): a row lock wait (lock_wait,
//     THD_WAIT_ROW_LOCK: OpRowLock's suspension), a synchronous page read
//     (buf_read_page_low, THD_WAIT_DISKIO: OpRead), a commit that waits for
//     another's redo log write and flush (group_commit_lock::acquire,
//     THD_WAIT_GROUP_COMMIT: OpLogCommit's sleep); Unix55 (XtraDB 5.5): a
//     row lock wait (srv_suspend_mysql_thread), innodb_thread_concurrency's
//     queue (srv_conc_enter_innodb, THD_WAIT_USER_LOCK) and a synchronous
//     page read, not a commit's wait for another's log flush
//     (log_write_up_to waits on no_flush_event unbracketed). Neither
//     brackets the commit that writes and flushes the log itself, OpWrite
//     and OpFsync, or mutex waits.
//   - check_stall, run by the timer thread every thread_pool_stall_limit: a
//     group with no listener that took no event from epoll since the last
//     tick gets a worker (it will become the listener); otherwise a group
//     whose queue is not empty and saw no queue_get since the last tick is
//     marked stalled (too_many_threads then lets any worker take from the
//     queue until get_event returns) and gets a worker. The timer thread is
//     not a thread of the machine here: its ticks cost nothing, and
//     Unix55's trylock of the group's mutex always succeeds.
//   - wake_or_create_thread: the head of the group's waiting list if a worker
//     sleeps there; else none when the group has more threads than
//     connections; else create_worker at once when no worker is active, or
//     when the last creation in the group is older than
//     microsecond_throttling_interval: by the group's threads, Generic 0
//     below 1 + thread_pool_oversubscribe, then 50 ms below 8, 100 ms below
//     16, 20 ms from 16 on (the source's 200*100), each times stall_limit /
//     max(500, stall_limit) in integer milliseconds, so 0 under a 500 ms
//     stall limit; Unix55 0 below 4, then 50 ms below 8, 100 ms below 16,
//     200 ms from 16 on.
//   - create_worker: refused once the pool has thread_pool_max_threads
//     workers and the group at least two; the new worker is a thread of the
//     machine like the first two (its stack and switches counted as theirs),
//     active from its creation and in get_event as soon as it runs. The
//     clone's cost is not charged to the thread that asks for it, nor is
//     the mysql_cond_signal of a wake_thread from wait_begin (its thread
//     has just blocked) or from check_stall (the timer's).
//
// Not modelled: thread_pool_idle_timeout (a worker that sleeps 60 s exits;
// the pool never shrinks here), the kick-up of check_stall.

// DefaultStallLimit is thread_pool_stall_limit's default (500 ms):
// check_stall's period.
const DefaultStallLimit = 500 * time.Millisecond

// MaxStallLimit is thread_pool_stall_limit's largest value
// (4294967295 ms, a uint of milliseconds).
const MaxStallLimit = 4294967295 * time.Millisecond

// MaxMaxThreads is thread_pool_max_threads' largest value and, as
// in MariaDB 10.2.4 and later, its default (65536).
const MaxMaxThreads = 65536

// served returns the pool worker state of thread id while it serves a
// pooled connection, else nil.
func (p *Pool) served(id int32) *poolWorker {
	if w := p.worker(id); w != nil && w.conn >= 0 {
		return w
	}
	return nil
}

// brackets reports whether the release's server calls thd_wait_begin
// around a wait of kind k (see the notes above).
func (p *Pool) brackets(k machine.WaitKind) bool {
	switch k {
	case machine.WaitRowLock, machine.WaitDiskIO:
		return true
	case machine.WaitUserLock:
		return p.release == Unix55
	case machine.WaitGroupCommit:
		return p.release == Generic
	}
	return false
}

// WaitBegin is thd_wait_begin for thread id, which has just blocked in a
// wait of kind k: nothing unless it is a pool worker serving a connection
// and the release brackets k (see the notes above). A wait not bracketed
// is not counted, and its WaitEnd is ignored.
func (p *Pool) WaitBegin(id int32, k machine.WaitKind) {
	w := p.served(id)
	if w == nil || !p.brackets(k) {
		return
	}
	w.waiting++
	if w.waiting > 1 {
		return
	}
	g := &p.groups[w.group]
	g.active--
	if g.active > 0 {
		return
	}
	wake := g.queued() // Generic: work is waiting
	if p.release == Unix55 {
		wake = !g.queued() // 5.5 to 10.1: is_queue_empty
	}
	if wake || g.listener < 0 {
		p.wakeOrCreate(g, w.group)
	}
}

// WaitEnd is thd_wait_end for thread id, running again after the wait
// WaitBegin began.
func (p *Pool) WaitEnd(id int32) {
	w := p.served(id)
	if w == nil || w.waiting == 0 {
		return
	}
	w.waiting--
	if w.waiting == 0 {
		p.groups[w.group].active++
	}
}

// wakeOrCreate is wake_or_create_thread for group g (index gi).
func (p *Pool) wakeOrCreate(g *poolGroup, gi int32) {
	if len(g.waiting) > 0 { // wake_thread
		next := g.waiting[0]
		g.waiting = g.waiting[1:]
		p.m.Wake(next)
		return
	}
	if g.threads > g.conns {
		return
	}
	if g.active == 0 || p.m.Now()-g.lastCreate > p.throttle(g) {
		p.createWorker(g, gi)
	}
}

// throttle is microsecond_throttling_interval, in ns.
func (p *Pool) throttle(g *poolGroup) int64 {
	const ms = int64(time.Millisecond)
	if p.release == Unix55 {
		switch {
		case g.threads < 4:
			return 0
		case g.threads < 8:
			return 50 * ms
		case g.threads < 16:
			return 100 * ms
		}
		return 200 * ms
	}
	limit := p.stallLimit / ms
	factor := limit / max(int64(DefaultStallLimit/time.Millisecond), limit)
	switch {
	case g.threads < 1+p.oversubscribe:
		return 0
	case g.threads < 8:
		return 50 * ms * factor
	case g.threads < 16:
		return 100 * ms * factor
	}
	return 20 * ms * factor
}

// createWorker is create_worker for group g (index gi): it counts the new
// worker now, as add_thread_count does, and adds its thread when the event
// runs (no thread of the machine is added while another's step holds it).
func (p *Pool) createWorker(g *poolGroup, gi int32) {
	if p.nworkers >= p.maxThreads && g.threads >= 2 {
		return
	}
	now := p.m.Now()
	g.lastCreate = now
	g.threads++
	g.active++
	p.nworkers++
	p.m.Engine().At(now, p.evCreate, gi, 0)
}

// onCreate adds the thread of a worker createWorker counted.
func (p *Pool) onCreate(_ int64, gi int32, _ uint32) { p.addWorker(gi) }

// onTimer is the timer thread's tick: check_stall of every group with
// connections, then the next tick.
func (p *Pool) onTimer(now int64, _ int32, _ uint32) {
	for i := range p.groups {
		g := &p.groups[i]
		if g.conns == 0 {
			continue
		}
		if g.listener < 0 && g.ioEvents == 0 {
			p.wakeOrCreate(g, int32(i))
			continue
		}
		g.ioEvents = 0
		if g.queued() && g.queueEvents == 0 {
			g.stalled = true
			p.wakeOrCreate(g, int32(i))
		}
		g.queueEvents = 0
	}
	p.m.Engine().At(now+p.stallLimit, p.evStall, 0, 0)
}
