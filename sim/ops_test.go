package sim

import (
	"time"

	"github.com/innosim/innosim/sim/machine"
)

// The machine's ops under short names, for the tests' programs.
type (
	Op     = machine.Op
	OpKind = machine.OpKind
)

const (
	OpCPU              = machine.OpCPU
	OpSyscall          = machine.OpSyscall
	OpSleep            = machine.OpSleep
	OpLock             = machine.OpLock
	OpUnlock           = machine.OpUnlock
	OpSetPrio          = machine.OpSetPrio
	OpDone             = machine.OpDone
	OpGateEnter        = machine.OpGateEnter
	OpGateExit         = machine.OpGateExit
	OpPrefetch         = machine.OpPrefetch
	OpSplit            = machine.OpSplit
	OpTrxBegin         = machine.OpTrxBegin
	OpTrxEnd           = machine.OpTrxEnd
	OpReadView         = machine.OpReadView
	OpAIOHandler       = machine.OpAIOHandler
	OpRead             = machine.OpRead
	OpWrite            = machine.OpWrite
	OpFsync            = machine.OpFsync
	OpPickRow          = machine.OpPickRow
	OpRowLock          = machine.OpRowLock
	OpLockRelease      = machine.OpLockRelease
	OpLogCommit        = machine.OpLogCommit
	OpPrefetchSiblings = machine.OpPrefetchSiblings
	OpSockSend         = machine.OpSockSend
	OpSockRecv         = machine.OpSockRecv
	OpDirty            = machine.OpDirty
	OpPageCleaner      = machine.OpPageCleaner
	CatUser            = machine.CatUser
	CatSys             = machine.CatSys
	CatFutexSpin       = machine.CatFutexSpin
	CatFutexHold       = machine.CatFutexHold
	SysSocket          = machine.SysSocket
	SleepLast          = machine.SleepLast
	SleepServer        = machine.SleepServer
	IORead             = machine.IORead
)

func cpu(d time.Duration) Op   { return Op{Kind: OpCPU, Dur: d} }
func sleep(d time.Duration) Op { return Op{Kind: OpSleep, Dur: d} }
func done(n int32) Op          { return Op{Kind: OpDone, Arg: n} }

const us = time.Microsecond
