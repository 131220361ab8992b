// Package progress reports how far a long command is: on a terminal, a
// progress bar a phase (study A, the field cases, a benchmark case); when its
// output goes to a file or a pipe (innosim validate 2>progress.txt), a short
// line as each phase starts and every Every while the command runs: the
// phase, its units done of their total when known, and the time since the
// command started.
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/innosim/innosim/internal/cmdflag"
)

// Every is how often a Reporter writes a line when its writer is not a
// terminal: often enough for a line every 10 s on a loaded machine.
const Every = 5 * time.Second

// Reporter reports a command's progress to one writer (the command's
// stderr). Its methods are safe for concurrent use. Write lets the command
// write its own lines to the same writer without tearing the reporter's.
// Close it when the command ends.
type Reporter struct {
	mu      sync.Mutex
	w       io.Writer
	command string
	start   time.Time
	now     func() time.Time
	last    time.Time // when the last line was written

	label, unit string
	done, total int

	bar   *progressbar.ProgressBar // on a terminal: the phase's bar, once it has a total
	term  bool
	lines bool // not a terminal, and lines asked for

	stop   chan struct{} // closed by Close: the ticker ends
	ticker sync.WaitGroup
	closed bool
}

// New returns a Reporter of command (its name in each line, as "innosim
// validate") writing to w: bars when w is a terminal, lines every Every
// otherwise.
func New(w io.Writer, command string) *Reporter {
	return newReporter(w, command, isTerminal(w), true, Every, time.Now)
}

// Bars returns a Reporter that draws bars when w is a terminal and writes
// nothing otherwise, for a command whose redirected stderr holds only its
// own lines (innosim run).
func Bars(w io.Writer, command string) *Reporter {
	return newReporter(w, command, isTerminal(w), false, Every, time.Now)
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// newReporter is New with the terminal test's answer, whether to write lines
// when w is not one, the interval between lines and the clock given.
func newReporter(w io.Writer, command string, isTerm, lines bool, every time.Duration, now func() time.Time) *Reporter {
	r := &Reporter{w: w, command: command, start: now(), now: now, term: isTerm, lines: lines && !isTerm, stop: make(chan struct{})}
	if r.lines {
		r.ticker.Add(1)
		go r.tick(every)
	}
	return r
}

// tick writes a line every every until Close.
func (r *Reporter) tick(every time.Duration) {
	defer r.ticker.Done()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
			r.mu.Lock()
			if !r.closed && r.now().Sub(r.last) >= every/2 { // not just after a phase's line
				r.line()
			}
			r.mu.Unlock()
		}
	}
}

// Phase starts a phase named label whose work is counted in unit ("cells",
// "points", "runs") and returns the function that reports its units done of
// their total (callable from several goroutines; a total may grow as the
// phase finds more work). On a terminal the previous phase's bar is cleared;
// otherwise a line says the phase started.
func (r *Reporter) Phase(label, unit string) func(done, total int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.finishBar()
	// a label may hold a name from a file (a table's): escaped, never obeyed
	r.label, r.unit, r.done, r.total = cmdflag.TerminalSafe(label), unit, 0, 0
	if r.lines && !r.closed {
		r.line()
	}
	return r.set
}

// End ends the current phase: its bar is cleared (before the command
// prints what the phase found), and lines name no phase until the next.
func (r *Reporter) End() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.finishBar()
	r.label, r.unit, r.done, r.total = "", "", 0, 0
}

// set records done of total in the current phase.
func (r *Reporter) set(done, total int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done, r.total = done, total
	if !r.term || r.closed {
		return
	}
	if r.bar == nil {
		r.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(r.w),
			progressbar.OptionSetDescription(r.label), progressbar.OptionClearOnFinish(),
			progressbar.OptionShowCount())
	}
	if int64(total) != r.bar.GetMax64() {
		r.bar.ChangeMax(total)
	}
	_ = r.bar.Set(done)
}

// line writes the current state: "innosim validate: study A: 37 of 144
// cells, 1m12s". r.mu is held.
func (r *Reporter) line() {
	r.last = r.now()
	elapsed := r.last.Sub(r.start).Round(time.Second)
	switch {
	case r.label == "":
		fmt.Fprintf(r.w, "%s: %v\n", r.command, elapsed)
	case r.total > 0:
		fmt.Fprintf(r.w, "%s: %s: %d of %d %s, %v\n", r.command, r.label, r.done, r.total, r.unit, elapsed)
	default:
		fmt.Fprintf(r.w, "%s: %s, %v\n", r.command, r.label, elapsed)
	}
}

// finishBar clears the current phase's bar, if any. r.mu is held.
func (r *Reporter) finishBar() {
	if r.bar != nil {
		_ = r.bar.Finish()
		r.bar = nil
	}
}

// Write writes p to the reporter's writer between its own lines.
func (r *Reporter) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.w.Write(p)
}

// Close ends the reporting: the bar is cleared, the line ticker stops and no
// more lines are written. It waits for the ticker to end and may be called
// more than once.
func (r *Reporter) Close() {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.closed = true
	r.finishBar()
	close(r.stop)
	r.mu.Unlock()
	r.ticker.Wait()
}
