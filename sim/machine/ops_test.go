package machine

import "time"

const us = time.Microsecond

// Constructors of the ops the tests' programs are written in.
func cpu(d time.Duration) Op   { return Op{Kind: OpCPU, Dur: d} }
func sleep(d time.Duration) Op { return Op{Kind: OpSleep, Dur: d} }
func lock(m int32) Op          { return Op{Kind: OpLock, Arg: m} }
func unlock(m int32) Op        { return Op{Kind: OpUnlock, Arg: m} }
func done(n int32) Op          { return Op{Kind: OpDone, Arg: n} }
func setPrio(h int32) Op       { return Op{Kind: OpSetPrio, Arg: h} }
func withProb(p float64, skip int32) Op {
	return Op{Kind: OpSplit, Arg: skip, Dur: time.Duration(p * 1e9)}
}
