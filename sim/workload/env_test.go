package workload

import (
	"github.com/innosim/innosim/mycnf"
	"github.com/innosim/innosim/sim/machine"
)

// testEnv is a workload's Env on a bare machine: no gate, and a log mutex of
// its own.
type testEnv struct {
	m   *machine.Machine
	srv mycnf.Server
}

func (e testEnv) AddMutex(mu machine.Mutex) int32 { return e.m.AddMutex(mu) }
func (e testEnv) GateMutex() int32                { return -1 }
func (e testEnv) LogMutex() int32                 { return e.m.AddMutex(machine.Mutex{Name: "log_sys"}) }
func (e testEnv) Server() mycnf.Server            { return e.srv }
