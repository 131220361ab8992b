package workload

import (
	"time"

	"github.com/innosim/innosim/sim/machine"
	"github.com/innosim/innosim/sim/rowlock"
)

// Constructors of the ops the workloads' programs are written in: syscall is
// a call of SysOther, sockCall a read or write on an open socket, setupCall
// a connection's setup or teardown.
func cpu(d time.Duration) machine.Op { return machine.Op{Kind: machine.OpCPU, Dur: d} }
func syscall(d time.Duration) machine.Op {
	return machine.Op{Kind: machine.OpSyscall, Dur: d}
}
func sockCall(d time.Duration) machine.Op {
	return machine.Op{Kind: machine.OpSyscall, Arg: int32(machine.SysSocket), Dur: d}
}
func setupCall(d time.Duration) machine.Op {
	return machine.Op{Kind: machine.OpSyscall, Arg: int32(machine.SysSetup), Dur: d}
}
func sleep(d time.Duration) machine.Op { return machine.Op{Kind: machine.OpSleep, Dur: d} }

// sleepFor is an OpSleep of d for a wait of the kind given (SleepServer,
// SleepLast, SleepThink).
func sleepFor(d time.Duration, kind int32) machine.Op {
	return machine.Op{Kind: machine.OpSleep, Dur: d, Arg: kind}
}
func lock(m int32) machine.Op   { return machine.Op{Kind: machine.OpLock, Arg: m} }
func unlock(m int32) machine.Op { return machine.Op{Kind: machine.OpUnlock, Arg: m} }
func done(n int32) machine.Op   { return machine.Op{Kind: machine.OpDone, Arg: n} }
func withProb(p float64, skip int32) machine.Op {
	return machine.Op{Kind: machine.OpSplit, Arg: skip, Dur: time.Duration(p * 1e9)}
}
func setPrio(h int32) machine.Op { return machine.Op{Kind: machine.OpSetPrio, Arg: h} }
func trxBegin() machine.Op       { return machine.Op{Kind: machine.OpTrxBegin} }
func trxEnd() machine.Op         { return machine.Op{Kind: machine.OpTrxEnd} }
func readView(perTrx time.Duration) machine.Op {
	return machine.Op{Kind: machine.OpReadView, Dur: perTrx}
}

// readViewLines is a read view that reads lines cache lines of every other
// active transaction, each at the machine's price of moving a line from the
// socket the transaction began on (see machine.OpReadView).
func readViewLines(lines int32) machine.Op {
	return machine.Op{Kind: machine.OpReadView, Arg: lines}
}
func prefetch(pages int32) machine.Op { return machine.Op{Kind: machine.OpPrefetch, Arg: pages} }
func prefetchSiblings() machine.Op    { return machine.Op{Kind: machine.OpPrefetchSiblings} }
func prefetchResidentSibling() machine.Op {
	return machine.Op{Kind: machine.OpPrefetchSiblings, Arg: machine.SiblingResident}
}
func pickRow() machine.Op { return machine.Op{Kind: machine.OpPickRow} }
func rowLock(kernel int32) machine.Op {
	return machine.Op{Kind: machine.OpRowLock, Arg: kernel, Dur: rowlock.RequestWork}
}
func lockRelease(kernel int32) machine.Op {
	return machine.Op{Kind: machine.OpLockRelease, Arg: kernel, Dur: rowlock.ReleaseWork}
}
func logCommit() machine.Op        { return machine.Op{Kind: machine.OpLogCommit} }
func dirty(pages int32) machine.Op { return machine.Op{Kind: machine.OpDirty, Arg: pages} }
