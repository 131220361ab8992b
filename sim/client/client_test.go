package client

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/mycnf"
	"github.com/innosim/innosim/prio"
	"github.com/innosim/innosim/sim/machine"
	"github.com/innosim/innosim/sim/workload"
)

func TestServerProgramTurnsClientWaitsIntoSocketTurns(t *testing.T) {
	send := func(d time.Duration) machine.Op { return machine.Op{Kind: machine.OpSockSend, Dur: d} }
	recv := func(d time.Duration) machine.Op { return machine.Op{Kind: machine.OpSockRecv, Dur: d} }
	cases := []struct {
		name     string
		in, want []machine.Op
	}{
		{"a statement: the wait and the read become a receive, the write a send",
			[]machine.Op{sleep(30), syscall(2), cpu(9), syscall(3), done(1)},
			[]machine.Op{recv(2), cpu(9), send(3), done(1)}},
		{"the write before each of two waits is its send",
			[]machine.Op{sleep(10), syscall(1), cpu(5), syscall(4), sleep(20), syscall(2), cpu(6), syscall(7), done(1)},
			[]machine.Op{recv(1), cpu(5), send(4), recv(2), cpu(6), send(7), done(1)}},
		{"a wait with no system call before it gets a send of no work; the last call wraps around",
			[]machine.Op{sleep(10), cpu(5), sleep(20), syscall(2), done(1)},
			[]machine.Op{recv(0), cpu(5), send(0), recv(0), send(2), done(1)}},
		{"a server wait stays a sleep; after the last request the client reads nothing",
			[]machine.Op{sleep(10), syscall(1), sleepFor(5, machine.SleepServer), syscall(4), sleep(20), syscall(2), sleepFor(3, machine.SleepLast), syscall(6), syscall(7), done(1)},
			[]machine.Op{recv(1), sleepFor(5, machine.SleepServer), send(4), recv(0), send(2), {Kind: machine.OpSockRecv, Arg: machine.SleepLast, Dur: 6}, syscall(7), done(1)}},
		// the scan passed over the server wait and took the request's own
		// read for the reply, which then came before the server's work
		{"a server wait ends the scan for the reply: a send of no work after it",
			[]machine.Op{sleep(10), syscall(1), cpu(5), sleepFor(5, machine.SleepServer), cpu(3), sleep(20), syscall(2), cpu(5), syscall(3), done(1)},
			[]machine.Op{recv(1), cpu(5), sleepFor(5, machine.SleepServer), cpu(3), send(0), recv(2), cpu(5), send(3), done(1)}},
		{"a pooled program: the receive is the wait, the read stays inside the pool",
			[]machine.Op{sleep(10), {Kind: machine.OpGateEnter}, syscall(2), cpu(5), syscall(3), done(1), {Kind: machine.OpGateExit}},
			[]machine.Op{recv(0), {Kind: machine.OpGateEnter}, syscall(2), cpu(5), send(3), done(1), {Kind: machine.OpGateExit}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, ServerProgram(tc.in))
		})
	}
}

// With the client on the machine, connect's waits were five round trips
// with the client, where libmariadb's client blocks three times a
// connection (the greeting and the OK in mysql_real_connect, SELECT 1's
// result) and reads nothing after COM_QUIT; the listener's hand-over to a
// cached thread waits for a server thread, not the client.
func TestConnectRoundTripsAreLibmariadbs(t *testing.T) {
	w, err := workload.Lookup("connect")
	require.NoError(t, err)
	m, err := machine.New(machine.Config{CPUs: 2})
	require.NoError(t, err)
	server := ServerProgram(w.Setup(env{m}))
	s := Install(m, nil)
	count := func(prog []machine.Op, k machine.OpKind) int {
		n := 0
		for _, op := range prog {
			if op.Kind == k {
				n++
			}
		}
		return n
	}
	assert.Equal(t, 4, count(server, machine.OpSockRecv), "the connect, the handshake response, SELECT 1, COM_QUIT")
	assert.Equal(t, 3, count(server, machine.OpSockSend), "the greeting, the OK, the result")
	assert.Equal(t, 1, count(server, machine.OpSleep), "the hand-over to a cached thread")
	require.NoError(t, s.Add(server, prio.Normal, Config{Event: us}))
	client := m.Program(1)
	assert.Equal(t, 4, count(client, machine.OpSockSend))
	assert.Equal(t, 3, count(client, machine.OpSockRecv), "the client's three blocking reads")
	assert.ErrorContains(t, m.AddThread([]machine.Op{sleepFor(1, 7)}, prio.Normal), "OpSleep wait 7, want SleepClient, SleepServer, SleepLast or SleepThink")
	// a client that reads nothing would flood its socket: one machine.SleepLast got a
	// stray send and an error the caller could not act on, two were accepted
	for _, prog := range [][]machine.Op{
		{sleepFor(3000, machine.SleepLast), syscall(1), cpu(5), done(1)},
		{sleepFor(3000, machine.SleepLast), cpu(5), sleepFor(3000, machine.SleepLast), cpu(5), done(1)},
	} {
		assert.ErrorContains(t, s.Add(ServerProgram(prog), prio.Normal, Config{}), "all of requests the client reads no reply to", "%v", prog)
	}
}

func TestConnectionsRefuseWhatTheyCannotRun(t *testing.T) {
	m, err := machine.New(machine.Config{CPUs: 2})
	require.NoError(t, err)
	assert.ErrorContains(t, m.AddThread([]machine.Op{{Kind: machine.OpSockRecv}}, prio.Normal), "want the thread added by AddConnection")
	s := Install(m, nil)
	assert.ErrorContains(t, m.AddThread([]machine.Op{{Kind: machine.OpSockRecv}}, prio.Normal), "want the thread added by AddConnection", "sockets installed, the thread not theirs")
	assert.ErrorContains(t, s.Add([]machine.Op{cpu(5), {Kind: machine.OpSockSend}}, prio.Normal, Config{}),
		"1 sends and 0 receives")
	assert.ErrorContains(t, s.Add(ServerProgram([]machine.Op{sleep(1), cpu(1)}), prio.Normal, Config{Event: -1}),
		"ClientConfig.Event = -1ns, want 0..1s")
	assert.ErrorContains(t, Config{Send: 2 * time.Second}.Validate(), "ClientConfig.Send = 2s, want 0..1s")
}

func TestServerCPUScalesTheBurstsToTheMeasuredCostPerUnit(t *testing.T) {
	m, err := machine.New(machine.Config{CPUs: 2, Costs: machine.NewKernel()})
	require.NoError(t, err)
	m.SetRemoteWake(true)
	s := Install(m, nil)
	p := m.Costs()
	prog := ServerProgram([]machine.Op{sleep(30 * us), sockCall(2 * us), cpu(6 * us), cpu(3 * us), sockCall(3 * us), done(1)})
	got, err := scaleServer(prog, Config{ServerCPU: 100 * us}, s.m.Costs(), false)
	require.NoError(t, err)
	// the machine's own part: two socket calls with their work, a switch per
	// receive (a socket's wake is a sync one: no wake call onto another CPU)
	fixed := 2*p.SyscallCost(machine.SysSocket) + 5*us + p.ContextSwitch
	var bursts time.Duration
	for _, op := range got {
		if op.Kind == machine.OpCPU {
			bursts += op.Dur
		}
	}
	assert.InDelta(t, float64(100*us-fixed), float64(bursts), 2)
	assert.InDelta(t, 2.0, float64(got[1].Dur)/float64(got[2].Dur), 1e-6, "one factor for every burst")
	assert.Equal(t, 6*us, prog[1].Dur, "the shared program is not changed")

	_, err = scaleServer(prog, Config{ServerCPU: fixed - 1}, s.m.Costs(), false)
	require.ErrorIs(t, err, machine.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "ClientConfig.ServerCPU")
}

const us = time.Microsecond

func cpu(d time.Duration) machine.Op     { return machine.Op{Kind: machine.OpCPU, Dur: d} }
func syscall(d time.Duration) machine.Op { return machine.Op{Kind: machine.OpSyscall, Dur: d} }
func sockCall(d time.Duration) machine.Op {
	return machine.Op{Kind: machine.OpSyscall, Arg: int32(machine.SysSocket), Dur: d}
}
func sleep(d time.Duration) machine.Op { return machine.Op{Kind: machine.OpSleep, Dur: d} }
func done(n int32) machine.Op          { return machine.Op{Kind: machine.OpDone, Arg: n} }
func sleepFor(d time.Duration, kind int32) machine.Op {
	return machine.Op{Kind: machine.OpSleep, Dur: d, Arg: kind}
}

// env is a workload's Env on a bare machine.
type env struct{ m *machine.Machine }

func (e env) AddMutex(mu machine.Mutex) int32 { return e.m.AddMutex(mu) }
func (e env) GateMutex() int32                { return -1 }
func (e env) LogMutex() int32                 { return e.m.AddMutex(machine.Mutex{Name: "log_sys"}) }
func (e env) Server() mycnf.Server            { return mycnf.Server{} }

// With StatsMutexes each client round passes sysbench 0.4/0.5's timers_mutex
// twice and its two percentiles' mutexes once each, out of the same Event;
// without, no mutex.
func TestStatsMutexesAreSysbench05s(t *testing.T) {
	for _, stats := range []bool{false, true} {
		m, err := machine.New(machine.Config{CPUs: 2, Costs: machine.NewKernel()})
		require.NoError(t, err)
		s := Install(m, nil)
		for range 4 {
			require.NoError(t, s.Add(ServerProgram([]machine.Op{sleep(30 * us), sockCall(2 * us), cpu(6 * us), sockCall(3 * us), done(1)}), prio.Normal,
				Config{Event: 5 * us, StatsMutexes: stats}))
		}
		r := m.Run(0, 10*time.Millisecond)
		require.NotZero(t, r.Units)
		if !stats {
			assert.Zero(t, m.MutexCount())
			continue
		}
		mu := m.Mutexes()
		require.Len(t, mu, 3, "timers_mutex and the two percentiles', shared by every client thread")
		assert.InDelta(t, 2*float64(mu[1].Acquisitions), float64(mu[0].Acquisitions), 8, "timers_mutex at the start and the stop")
		assert.InDelta(t, float64(mu[1].Acquisitions), float64(mu[2].Acquisitions), 4)
		assert.InDelta(t, float64(r.Units), float64(mu[1].Acquisitions), 8, "one event a unit")
	}
	m, err := machine.New(machine.Config{CPUs: 2, Costs: machine.NewKernel()})
	require.NoError(t, err)
	err = Install(m, nil).Add(ServerProgram([]machine.Op{sleep(30 * us), sockCall(2 * us), cpu(6 * us), sockCall(3 * us), done(1)}), prio.Normal,
		Config{Event: 100 * time.Nanosecond, StatsMutexes: true})
	assert.ErrorContains(t, err, "StatsMutexes wants an Event of at least 400ns")
}
