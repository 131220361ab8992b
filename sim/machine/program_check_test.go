package machine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/prio"
)

// AddThread refuses a program the interpreter cannot run, naming the op by
// its place: an OpSplit that skipped past the program's end was accepted and
// Run panicked (index out of range), a negative skip could loop on ops that
// take no time, and an unknown kind, an undefined hint or a probability above
// one were accepted or reported as another mistake ("no op that takes time";
// "op 2 duration" for op 0, kind 2).
func TestAddThreadRefusesAProgramItCannotRun(t *testing.T) {
	work := Op{Kind: OpCPU, Dur: time.Microsecond}
	tests := []struct {
		name string
		prog []Op
		hint prio.Hint
		want string
	}{
		{"a skip past the end", []Op{{Kind: OpSplit, Arg: 100}, work, done(1)}, prio.Normal, "op 0 of 3: OpSplit skips 100 ops, want 0..2"},
		{"a skip from the last op", []Op{work, {Kind: OpSplit, Arg: 1}}, prio.Normal, "op 1 of 2: OpSplit skips 1 ops, want 0..0"},
		{"a negative skip", []Op{work, {Kind: OpSplit, Arg: -2}, done(1)}, prio.Normal, "OpSplit skips -2 ops"},
		{"a probability above one", []Op{{Kind: OpSplit, Dur: 2e9}, work}, prio.Normal, "OpSplit probability 2000000000 parts per billion"},
		{"an unknown kind", []Op{{Kind: 200, Dur: time.Second}, work}, prio.Normal, "op 0 of 2: op kind 200, want one of the OpKind constants"},
		{"a negative sleep named by its place", []Op{{Kind: OpSleep, Dur: -time.Second}, work}, prio.Normal, "op 0 of 2: op kind 2 duration -1s"},
		{"a lock on a machine without mutexes", []Op{lock(0), work, unlock(0)}, prio.Normal, "op 0 of 3: op mutex 0, want a mutex added by AddMutex"},
		{"an undefined OpSetPrio hint", []Op{setPrio(100), work}, prio.Normal, "OpSetPrio hint 100, want -4..4"},
		{"a negative count", []Op{work, done(-3)}, prio.Normal, "OpDone count -3"},
		{"an undefined thread hint", []Op{work}, prio.Hint(100), "thread hint 100, want -4..4"},
		// Run looped forever in one event: the split always skips the only CPU op
		{"a certain skip past every op that takes time", []Op{withProb(0, 1), work, done(1)}, prio.Normal, "skips every op that takes time"},
		{"certain splits around it", []Op{withProb(1, 2), withProb(0, 1), work, done(1)}, prio.Normal, "skips every op that takes time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := New(Config{CPUs: 2, Priorities: true})
			require.NoError(t, err)
			err = m.AddThread(tt.prog, tt.hint)
			require.ErrorIs(t, err, ErrInvalidConfig)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// The longest skip that lands inside the program is accepted and runs.
func TestAddThreadAcceptsASkipToTheEnd(t *testing.T) {
	m, err := New(Config{CPUs: 1})
	require.NoError(t, err)
	require.NoError(t, m.AddThread([]Op{withProb(0.5, 2), {Kind: OpCPU, Dur: time.Microsecond}, done(1), {Kind: OpCPU, Dur: time.Microsecond}}, prio.Normal))
	assert.Positive(t, m.Run(time.Millisecond, time.Millisecond).Throughput)
}
