package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestRunPrintsATablePerPolicy(t *testing.T) {
	var out bytes.Buffer
	err := run([]string{"-clients", "1,3", "-limits", "1,2", "-duration", "5ms", "-policies", "queue,handoff"}, &out)
	require.NoError(t, err)
	text := out.String()
	for _, want := range []string{"policy=queue", "policy=handoff", "limit=1", "limit=2"} {
		assert.Contains(t, text, want)
	}
	assert.NotContains(t, text, "policy=atomic")
	lines := strings.Split(strings.TrimSpace(text), "\n")
	assert.Len(t, lines, 1+2*5, "a header line, then per policy a blank line, a title, a column header and two rows")
}

// TestRunMeasuresHandoffWithBarging: Handoff runs with DefaultConfig's bounded
// barging (1 ms) unless -starvation says otherwise; -starvation 0 is strict,
// and the table's name says which.
func TestRunMeasuresHandoffWithBarging(t *testing.T) {
	for _, c := range []struct {
		flags       []string
		want, table string
	}{
		{nil, "Handoff starvation 1ms", "policy=handoff-barging\n"},
		{[]string{"-starvation", "5ms"}, "Handoff starvation 5ms", "policy=handoff-barging\n"},
		{[]string{"-starvation", "0"}, "Handoff starvation 0s", "policy=handoff-strict\n"},
	} {
		var out bytes.Buffer
		args := append([]string{"-clients", "4", "-limits", "1", "-duration", "5ms", "-policies", "handoff"}, c.flags...)
		require.NoError(t, run(args, &out))
		assert.Contains(t, out.String(), c.want, c.flags)
		assert.Contains(t, out.String(), c.table, "the table is named for the mode measured")
	}
}

// TestRunShowsTheP99Wait: with -p99 a cell whose gate timed waits shows the
// 99th percentile after the rate; Semaphore times none and shows the rate only.
//
// Whether 8 clients meet at the gate is the scheduler's choice: on a loaded
// machine (race detector, both cores busy) a 20 ms cell once ran its clients
// one after another, and no enter waited. So the test runs the cell until one
// of its handoff cells waited, at most 10 times.
func TestRunShowsTheP99Wait(t *testing.T) {
	var handoff string
	for try := 0; try < 10 && !strings.Contains(handoff, "(p99 "); try++ {
		var out bytes.Buffer
		err := run([]string{"-clients", "8", "-limits", "1", "-duration", "20ms", "-policies", "handoff,semaphore", "-p99"}, &out)
		require.NoError(t, err)
		text := out.String()
		h, semaphore, ok := strings.Cut(text, "policy=semaphore")
		require.True(t, ok, text)
		assert.NotContains(t, semaphore, "(p99 ", "Semaphore times no wait")
		handoff = h
	}
	assert.Contains(t, handoff, "(p99 ", "8 clients at limit 1 wait")
}

func TestRunRejectsBadFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"limit above 1000", []string{"-limits", "2000"}, "out of range 1..1000"},
		{"unknown policy", []string{"-policies", "fifo"}, "invalid config"},
		{"no duration", []string{"-duration", "0s"}, "-duration"},
		{"starvation above 1s", []string{"-starvation", "2s"}, "Starvation = 2s, want 0..1s"},
		// both used to be measured: the argument ignored, the row twice
		{"a stray argument", []string{"-clients", "1", "extra"}, `unexpected argument "extra"`},
		{"a client count given twice", []string{"-clients", "4,1,4"}, "4 given twice"},
		{"a limit given twice", []string{"-limits", "2,2"}, "2 given twice"},
		// these named no range, or no flag, or measured a policy twice
		{"an empty client count", []string{"-clients", "1,,2"}, `-clients: "" is not an integer, want 1..65536`},
		{"a limit that is no number", []string{"-limits", "x"}, `-limits: "x" is not an integer, want 1..1000`},
		{"a negative burst", []string{"-burst", "-1"}, "-burst -1, want ≥ 0"},
		{"a negative duration", []string{"-duration", "-1s"}, "-duration -1s, want > 0"},
		{"a policy given twice", []string{"-policies", "queue,queue"}, "-policies: queue given twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := run(tt.args, &bytes.Buffer{}) // every case fails before measuring
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestRunHelpIsNotAnError: -h prints the usage and ends the run, without
// measuring and without the "flag: help requested" error a user would see as a
// failure (exit status 2).
func TestRunHelpIsNotAnError(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run([]string{"-h"}, &out))
	assert.Empty(t, out.String(), "nothing measured")
}
