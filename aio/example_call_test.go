package aio_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/prio"
)

// Write a page, make it durable, and read it back, each call blocking until
// its I/O is done, on the Array an embedding program starts from.
func ExampleArray_WriteAt() {
	dir, err := os.MkdirTemp("", "aio-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	f, err := os.Create(filepath.Join(dir, "data"))
	if err != nil {
		panic(err)
	}
	defer f.Close()

	cfg, opts := aio.EmbedConfig() // native AIO where io_uring works
	a, err := aio.New(cfg, opts...)
	if err != nil {
		panic(err)
	}
	defer a.Close()
	ctx := context.Background()

	page := make([]byte, 16<<10)
	copy(page, "hello, page 3")
	if _, err := a.WriteAt(ctx, f, page, 3*int64(len(page))); err != nil {
		panic(err)
	}
	if err := a.Sync(ctx, f); err != nil { // the write above is durable
		panic(err)
	}
	got := make([]byte, len(page))
	n, err := a.ReadAt(ctx, f, got, 3*int64(len(page)))
	fmt.Println(n, err, string(got[:13]))
	// Output: 16384 <nil> hello, page 3
}

// ReadAt as os.File.ReadAt: io.EOF when the file ends first. The context's
// prio hint orders the read among those waiting (and with WithIOPriority goes
// to the I/O scheduler); a context that has ended refuses the read, and one
// that ends while it waits returns ErrCanceled, the read never done.
func ExampleArray_ReadAt() {
	dir, err := os.MkdirTemp("", "aio-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "data")
	if err := os.WriteFile(path, make([]byte, 100), 0o600); err != nil {
		panic(err)
	}
	f, err := os.Open(path)
	if err != nil {
		panic(err)
	}
	defer f.Close()

	cfg, opts := aio.EmbedConfig()
	a, err := aio.New(cfg, opts...)
	if err != nil {
		panic(err)
	}
	defer a.Close()

	ctx := prio.WithHint(context.Background(), prio.High) // a foreground read
	buf := make([]byte, 4096)
	n, err := a.ReadAt(ctx, f, buf, 0)
	fmt.Println(n, err == io.EOF)

	ended, cancel := context.WithTimeout(ctx, time.Nanosecond)
	defer cancel()
	<-ended.Done()
	_, err = a.ReadAt(ended, f, buf, 0)
	fmt.Println(errors.Is(err, context.DeadlineExceeded))
	// Output:
	// 100 true
	// true
}
