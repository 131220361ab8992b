//go:build unix

package calibrate

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// pipeSwitch measures a context switch as half a round trip of one byte over two
// blocking pipes between two locked OS threads, the shape of lmbench's lat_ctx:
// each side blocks in read(2) until the other writes, so every half trip is a
// write, a wake-up and a switch to the reader. The pipes are raw blocking file
// descriptors, not os.File, so the Go netpoller stays out of the path.
func pipeSwitch(rounds int) (float64, error) {
	var fds [4]int // there: fds[0] read, fds[1] write; back: fds[2] read, fds[3] write
	if err := unix.Pipe(fds[0:2]); err != nil {
		return 0, fmt.Errorf("pipe: %w", err)
	}
	if err := unix.Pipe(fds[2:4]); err != nil {
		closeFDs(fds[0], fds[1])
		return 0, fmt.Errorf("pipe: %w", err)
	}
	thereR, thereW, backR, backW := fds[0], fds[1], fds[2], fds[3]

	partner := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		err := echo(thereR, backW, rounds+1)
		closeFDs(backW) // if the partner stopped early, our read ends with 0 bytes
		partner <- err
	}()

	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	exchange := func() error {
		if err := writeByte(thereW); err != nil {
			return err
		}
		return readByte(backR)
	}
	var (
		elapsed time.Duration
		err     = exchange() // warm-up
	)
	if err == nil {
		start := time.Now()
		for i := 0; i < rounds && err == nil; i++ {
			err = exchange()
		}
		elapsed = time.Since(start)
	}
	// Closing the partner's input ends its read with 0 bytes if we stopped early;
	// after a full run it has already returned.
	closeFDs(thereW)
	perr := <-partner
	closeFDs(thereR, backR)
	if err != nil {
		return 0, err
	}
	if perr != nil {
		return 0, perr
	}
	return perOp(elapsed, 2*rounds), nil
}

// echo reads one byte from in and writes one to out, n times.
func echo(in, out, n int) error {
	for i := 0; i < n; i++ {
		if err := readByte(in); err != nil {
			return err
		}
		if err := writeByte(out); err != nil {
			return err
		}
	}
	return nil
}

var errShortIO = errors.New("pipe: read or wrote 0 bytes")

func readByte(fd int) error {
	var b [1]byte
	for {
		n, err := unix.Read(fd, b[:])
		if err == unix.EINTR { // the runtime's preemption signal
			continue
		}
		if err != nil {
			return fmt.Errorf("read: %w", err)
		}
		if n != 1 {
			return errShortIO
		}
		return nil
	}
}

func writeByte(fd int) error {
	b := [1]byte{1}
	for {
		n, err := unix.Write(fd, b[:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("write: %w", err)
		}
		if n != 1 {
			return errShortIO
		}
		return nil
	}
}

// closeFDs closes each descriptor once. Errors are ignored: these are pipe ends
// whose data has been read, and close on a pipe cannot lose anything.
func closeFDs(fds ...int) {
	for _, fd := range fds {
		_ = unix.Close(fd)
	}
}
