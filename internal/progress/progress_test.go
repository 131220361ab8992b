package progress

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// syncBuffer is a bytes.Buffer safe for the reporter's ticker and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Split(strings.TrimSuffix(s.b.String(), "\n"), "\n")
}

// clock is a settable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) add(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.t = c.t.Add(d) }

func TestLinesSayThePhaseItsCountAndTheTimeSinceTheStart(t *testing.T) {
	var out syncBuffer
	c := &clock{t: time.Unix(1000, 0)}
	r := newReporter(&out, "innosim validate", false, true, time.Hour, c.now) // lines from Phase only
	update := r.Phase("study A", "cells")
	update(37, 144)
	c.add(72 * time.Second)
	r.Phase("field cases", "cells")
	c.add(3 * time.Second)
	r.mu.Lock()
	r.line()
	r.mu.Unlock()
	r.set(2, 30)
	r.mu.Lock()
	r.line()
	r.mu.Unlock()
	r.Close()
	r.Phase("after close", "cells")
	assert.Equal(t, []string{
		"innosim validate: study A, 0s",
		"innosim validate: field cases, 1m12s",
		"innosim validate: field cases, 1m15s",
		"innosim validate: field cases: 2 of 30 cells, 1m15s",
	}, out.lines(), "a line as each phase starts, none after Close")
}

// TestALineEveryIntervalUntilClose: the ticker writes the current state
// every interval while no phase changes (a cell that runs for minutes), and
// nothing after Close.
func TestALineEveryIntervalUntilClose(t *testing.T) {
	var out syncBuffer
	r := newReporter(&out, "innosim reproduce", false, true, 10*time.Millisecond, time.Now)
	update := r.Phase("study A", "cells")
	update(3, 144)
	require.Eventually(t, func() bool { return len(out.lines()) >= 4 }, 5*time.Second, time.Millisecond,
		"the phase's line and three ticks")
	r.Close()
	n := len(out.lines())
	time.Sleep(50 * time.Millisecond)
	assert.Len(t, out.lines(), n, "no line after Close")
	for _, l := range out.lines()[1:] {
		assert.Regexp(t, `^innosim reproduce: study A: 3 of 144 cells, \d+s$`, l)
	}
	r.Close() // a second Close does nothing
}

// TestUpdatesFromManyGoroutines: cells finish in RunCells' goroutines; under
// -race nothing races, and the last count written is one of theirs.
func TestUpdatesFromManyGoroutines(t *testing.T) {
	var out syncBuffer
	r := newReporter(&out, "innosim validate", false, true, time.Millisecond, time.Now)
	update := r.Phase("study B", "cells")
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				update(g*200+i, 1600)
				_, _ = r.Write([]byte("a line of the command's own\n"))
			}
		}()
	}
	wg.Wait()
	r.Close()
	for _, l := range out.lines() {
		if l != "a line of the command's own" {
			assert.Regexp(t, `^innosim validate: study B(: \d+ of 1600 cells)?, \d+s$`, l, "no line torn by another")
		}
	}
}

// TestATerminalGetsABarNotLines: on a terminal the phase is a bar (cleared
// when the next phase starts and at Close), and no line is written.
func TestATerminalGetsABarNotLines(t *testing.T) {
	var out syncBuffer
	r := newReporter(&out, "innosim reproduce", true, true, time.Millisecond, time.Now)
	update := r.Phase("study C", "cells")
	update(1, 14)
	update(7, 14)
	r.Phase("study D", "cells")(2, 8)
	time.Sleep(10 * time.Millisecond)
	r.Close()
	all := strings.Join(out.lines(), "\n")
	assert.Contains(t, all, "study C")
	assert.Contains(t, all, "7/14")
	assert.Contains(t, all, "study D")
	assert.NotContains(t, all, "innosim reproduce:", "no line on a terminal")
}

// TestBarsWritesNothingOffATerminal: run's redirected stderr holds only its
// own lines.
func TestBarsWritesNothingOffATerminal(t *testing.T) {
	var out syncBuffer
	r := Bars(&out, "innosim run")
	r.Phase("cells", "cells")(3, 4)
	_, _ = r.Write([]byte("a warning\n"))
	r.Close()
	assert.Equal(t, []string{"a warning"}, out.lines())
}

// A phase named for a user's table ("# name:" of a CSV) wrote the name raw:
// its control characters are escaped.
func TestPhaseLabelsAreEscaped(t *testing.T) {
	var out syncBuffer
	c := &clock{t: time.Unix(1000, 0)}
	r := newReporter(&out, "innosim validate", false, true, time.Hour, c.now)
	r.Phase("user table: \x1b]0;owned\a", "cells")
	r.Close()
	all := strings.Join(out.lines(), "\n")
	assert.NotContains(t, all, "\x1b")
	assert.Contains(t, all, `user table: \x1b]0;owned\a`)
}
