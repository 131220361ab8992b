package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/internal/cmdflag"
)

// The first signal cancels the context, with the signal as its cause; the
// second ends the process at once with 128 + its number: a command blocked
// in a read the kernel does not interrupt (/proc/kmsg, a hard-mounted NFS
// file) ignored Ctrl-C and SIGTERM until SIGKILL.
func TestASecondSignalExitsAtOnce(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	exited := make(chan int, 1)
	var stderr bytes.Buffer
	ctx, stop := notifyContext(context.Background(), sigs, &stderr, func(code int) { exited <- code })
	defer stop()

	sigs <- syscall.SIGTERM
	<-ctx.Done()
	var sig signalled
	require.ErrorAs(t, context.Cause(ctx), &sig)
	assert.Equal(t, 143, sig.status(), "128 + SIGTERM")
	select {
	case code := <-exited:
		t.Fatalf("exited %d on the first signal", code)
	case <-time.After(10 * time.Millisecond):
	}

	sigs <- os.Interrupt
	select {
	case code := <-exited:
		assert.Equal(t, 130, code, "128 + SIGINT")
	case <-time.After(10 * time.Second):
		t.Fatal("the second signal did not end the process")
	}
	assert.Contains(t, stderr.String(), "again: exiting now")
}

// stop ends the watch: no signal after it exits the process.
func TestStopEndsTheWatch(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	ctx, stop := notifyContext(context.Background(), sigs, &bytes.Buffer{}, func(code int) { t.Errorf("exited %d", code) })
	stop()
	sigs <- os.Interrupt
	sigs <- os.Interrupt
	assert.ErrorIs(t, ctx.Err(), context.Canceled)
	var sig signalled
	assert.False(t, errors.As(context.Cause(ctx), &sig), "not a signal's cause")
}

// A command a signal stopped exits 128 + the signal's number whatever its
// error says: live exited 1 when interrupted, which a script cannot tell
// from a failure.
func TestExitStatusOfAnInterruptedCommandIs130(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(signalled{os.Interrupt})
	for _, err := range []error{
		fmt.Errorf("interrupted: no output written: %w", context.Canceled),
		errFailed,
		errors.New("live: sysbench: signal: killed"),
	} {
		var stderr bytes.Buffer
		assert.Equal(t, 130, exitStatus(ctx, "live", err, &stderr), "%v", err)
	}
	var stderr bytes.Buffer
	assert.Equal(t, 0, exitStatus(ctx, "live", nil, &stderr), "a command that finished anyway")

	for _, tc := range []struct {
		err    error
		status int
		out    string
	}{
		{nil, 0, ""},
		{cmdflag.Usagef("-x: want y"), 2, "innosim run: -x: want y\n"},
		{&cmdflag.UsageError{Err: errors.New("flag provided but not defined: -x"), BadFlag: true}, 2,
			"innosim run: flag provided but not defined: -x\nrun 'innosim help run' for the flags\n"},
		{errFailed, 1, ""},
		{errors.New("run: boom"), 1, "innosim run: boom\n"},
	} {
		var stderr bytes.Buffer
		assert.Equal(t, tc.status, exitStatus(context.Background(), "run", tc.err, &stderr), "%v", tc.err)
		assert.Equal(t, tc.out, stderr.String())
	}
}

// A command Ctrl-C stopped ended its message with the context's "context
// canceled", Go's word for it; it now ends with what the signal did, and
// still exits 128 + the signal's number.
func TestInterruptedMessageSaysInterrupted(t *testing.T) {
	for _, tc := range []struct {
		sig  os.Signal
		err  error
		want string
	}{
		{os.Interrupt, fmt.Errorf("interrupted: no output written: %w", context.Canceled), "innosim run: interrupted: no output written\n"},
		{os.Interrupt, fmt.Errorf("run: study A: %w", context.Canceled), "innosim run: study A: interrupted\n"},
		{os.Interrupt, context.Canceled, "innosim run: interrupted\n"},
		{syscall.SIGTERM, fmt.Errorf("study A: %w", context.Canceled), "innosim run: study A: stopped by signal: terminated\n"},
		{os.Interrupt, errors.New("sysbench: signal: killed"), "innosim run: sysbench: signal: killed\n"},
	} {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(signalled{tc.sig})
		var stderr bytes.Buffer
		assert.Equal(t, signalled{tc.sig}.status(), exitStatus(ctx, "run", tc.err, &stderr))
		assert.Equal(t, tc.want, stderr.String())
	}
	var stderr bytes.Buffer
	exitStatus(context.Background(), "run", fmt.Errorf("x: %w", context.Canceled), &stderr)
	assert.Equal(t, "innosim run: x: context canceled\n", stderr.String(), "no signal: the error as it is")
}
