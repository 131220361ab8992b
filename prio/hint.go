package prio

import "strconv"

// Hint names what a thread is doing, so that a scheduler — the OS's, an admission
// queue's or an AIO handler's — can favour urgent work. Larger is more urgent. The
// zero value is Normal: no preference, nothing changes.
//
// The levels merge two vocabularies: MySQL 5.1's per-connection priorities
// (INTERRUPT_PRIOR, CONNECT_PRIOR, WAIT_PRIOR, QUERY_PRIOR in sql/mysql_priv.h) and
// RocksDB's CPU priorities (Env::CpuPriority: kIdle, kLow, kNormal, kHigh), plus
// Background for an engine's own flushing and read-ahead.
type Hint int8

// Hint levels, least urgent first.
const (
	Idle       Hint = -4 // run only when the CPU is otherwise idle (RocksDB kIdle; SCHED_IDLE)
	Low        Hint = -3 // deferrable bulk work such as compaction (RocksDB kLow)
	Background Hint = -2 // the engine's own background work: page flushing, read-ahead
	Wait       Hint = -1 // a connection thread waiting for its client (MySQL WAIT_PRIOR)
	Normal     Hint = 0  // no preference; the zero value (RocksDB kNormal)
	Query      Hint = 1  // a connection thread executing a query (MySQL QUERY_PRIOR)
	Connect    Hint = 2  // a thread accepting or authenticating a connection (MySQL CONNECT_PRIOR)
	High       Hint = 3  // latency-critical work such as a foreground sync read (RocksDB kHigh)
	Interrupt  Hint = 4  // a thread delivering a kill or shutdown (MySQL INTERRUPT_PRIOR)
)

var hintNames = [...]string{"idle", "low", "background", "wait", "normal", "query", "connect", "high", "interrupt"}

// String returns the hint's lower-case name, or "hint(N)" for a value outside the
// defined levels.
func (h Hint) String() string {
	if h < Idle || h > Interrupt {
		return "hint(" + strconv.Itoa(int(h)) + ")"
	}
	return hintNames[h-Idle]
}

// Valid reports whether h is one of the defined levels (Idle..Interrupt).
func (h Hint) Valid() bool { return h >= Idle && h <= Interrupt }
