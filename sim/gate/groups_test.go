package gate

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/innosim/innosim/sim/machine"
)

func TestPoolProgramHoldsASeatOnlyBetweenClientWaits(t *testing.T) {
	enter, exit := machine.Op{Kind: machine.OpGateEnter}, machine.Op{Kind: machine.OpGateExit}
	cases := []struct {
		name     string
		in, want []machine.Op
	}{
		{"a statement: wait, work, done",
			[]machine.Op{sleep(10), cpu(5), syscall(1), done(1)},
			[]machine.Op{sleep(10), enter, cpu(5), syscall(1), done(1), exit}},
		{"two requests in one program",
			[]machine.Op{sleep(10), cpu(5), sleep(20), cpu(6), done(1)},
			[]machine.Op{sleep(10), enter, cpu(5), exit, sleep(20), enter, cpu(6), done(1), exit}},
		{"work before the first wait, back to back waits",
			[]machine.Op{cpu(1), sleep(2), sleep(3), cpu(4)},
			[]machine.Op{enter, cpu(1), exit, sleep(2), sleep(3), enter, cpu(4), exit}},
		{"the program's own innodb_thread_concurrency gate is dropped",
			[]machine.Op{sleep(10), enter, cpu(5), exit, done(1)},
			[]machine.Op{sleep(10), enter, cpu(5), done(1), exit}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, PoolProgram(tc.in))
		})
	}
}

func sleep(d int64) machine.Op   { return machine.Op{Kind: machine.OpSleep, Dur: time.Duration(d)} }
func cpu(d int64) machine.Op     { return machine.Op{Kind: machine.OpCPU, Dur: time.Duration(d)} }
func syscall(d int64) machine.Op { return machine.Op{Kind: machine.OpSyscall, Dur: time.Duration(d)} }
func done(n int32) machine.Op    { return machine.Op{Kind: machine.OpDone, Arg: n} }
