package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/innosim/innosim/prio"
)

// Open a store, update a page through a session, write it back with a
// checkpoint, and find the new version in the file.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "pagestore")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	cfg := DefaultConfig(filepath.Join(dir, "pages.ibd"), 256)
	cfg.Frames = 32
	cfg.FlushInterval = time.Minute // leave the writing to Checkpoint here
	s, err := Open(cfg)
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	ss := s.Session(prio.Query)
	err = ss.Update(ctx, 7, func(payload []byte, version uint64) {
		copy(payload, fmt.Sprintf("hello, version %d", version))
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("dirty before checkpoint:", s.Dirty(7))
	if err := s.Checkpoint(ctx); err != nil {
		panic(err)
	}
	fmt.Println("dirty after checkpoint:", s.Dirty(7))
	ss.Close()
	if err := s.Close(); err != nil {
		panic(err)
	}
	versions, err := Verify(cfg.Path, cfg.Pages, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println("page 7 in the file: version", versions[7])
	// Output:
	// dirty before checkpoint: true
	// dirty after checkpoint: false
	// page 7 in the file: version 1
}
