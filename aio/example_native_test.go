package aio_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/innosim/innosim/aio"
)

// Read a file through native AIO (io_uring), falling back to simulated AIO
// where the kernel refuses io_uring, as InnoDB falls back when
// innodb_use_native_aio=1 meets a kernel without Linux AIO. Under WakeDeferred
// the four pages go to the kernel at Flush, merged into one read.
func ExampleNew_native() {
	dir, err := os.MkdirTemp("", "aio-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	const page = 16 << 10
	data := bytes.Repeat([]byte("innosim!"), 4*page/8)
	path := filepath.Join(dir, "data")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		panic(err)
	}
	f, err := os.Open(path)
	if err != nil {
		panic(err)
	}
	defer f.Close()

	cfg := aio.DefaultConfig()
	cfg.IO, cfg.Wake = aio.IONative, aio.WakeDeferred
	arr, err := aio.New(cfg)
	if errors.Is(err, aio.ErrNativeUnavailable) {
		cfg.IO = aio.IOSimulated // the error says why: not Linux, a sysctl, seccomp, ...
		arr, err = aio.New(cfg)
	}
	if err != nil {
		panic(err)
	}
	got := make([]byte, len(data))
	var wg sync.WaitGroup
	for p := range 4 {
		wg.Add(1)
		r := &aio.Request{File: f, Offset: int64(p) * page, Buf: got[p*page : (p+1)*page],
			Done: func(_ *aio.Request, err error) {
				if err != nil {
					fmt.Println(err)
				}
				wg.Done()
			}}
		if err := arr.Submit(context.Background(), r); err != nil {
			panic(err)
		}
	}
	arr.Flush()
	wg.Wait()
	if err := arr.Close(); err != nil {
		panic(err)
	}
	st := arr.Stats()
	fmt.Println(bytes.Equal(got, data), st.Completed, "requests in", st.Batches, "I/O")
	// Output: true 4 requests in 1 I/O
}
