package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/innosim/innosim/prio"
)

// Workload is a mixed read/write workload: Clients sessions, each making Ops
// operations, chosen at random as a point read, a point update, or a scan of
// ScanPages consecutive pages from the start of an extent (which triggers
// read-ahead). Each operation is one statement: its page accesses share the
// session's tickets, and it gives the seat back at its end.
type Workload struct {
	Clients       int    // sessions, each on its own goroutine; ≥ 1
	Ops           int    // operations per session; ≥ 1
	UpdatePercent int    // share of operations that update a page, 0..100
	ScanPercent   int    // share that scan, 0..100-UpdatePercent; the rest are point reads
	ScanPages     int    // pages per scan, ≥ 1
	Seed          uint64 // seeds each session's generator
}

// validate reports the first field of w out of range, as Config's do.
func (w Workload) validate() error {
	switch {
	case w.Clients < 1:
		return invalid("Workload.Clients", w.Clients, "≥ 1")
	case w.Ops < 1:
		return invalid("Workload.Ops", w.Ops, "≥ 1")
	case w.ScanPages < 1:
		return invalid("Workload.ScanPages", w.ScanPages, "≥ 1")
	case w.UpdatePercent < 0 || w.UpdatePercent > 100:
		return invalid("Workload.UpdatePercent", w.UpdatePercent, "0..100")
	case w.ScanPercent < 0 || w.ScanPercent > 100-w.UpdatePercent:
		return invalid("Workload.ScanPercent", w.ScanPercent, fmt.Sprintf("0..%d (100 - UpdatePercent)", 100-w.UpdatePercent))
	}
	return nil
}

// Result is what a workload did. Updates holds, by page, the number of
// Updates that returned nil: after a clean Close the file must show exactly
// that version for each page.
type Result struct {
	Reads, Updates, ScanPages uint64
	PerPage                   []uint64
}

// fill writes the payload that version v of page n must hold: a generator
// seeded by both, so a stale, torn or misplaced payload cannot match.
func fill(p []byte, n int64, v uint64) {
	x := uint64(n)<<32 ^ v*0x9E3779B97F4A7C15 | 1
	for i := 0; i+8 <= len(p); i += 8 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		binary.LittleEndian.PutUint64(p[i:], x)
	}
}

// checkPayload reports whether p is the payload of version v of page n.
func checkPayload(n int64, p []byte, v uint64) error {
	if v == 0 {
		for _, b := range p {
			if b != 0 {
				return fmt.Errorf("pagestore: page %d version 0 has a non-zero payload", n)
			}
		}
		return nil
	}
	want := make([]byte, len(p))
	fill(want, n, v)
	if string(want) != string(p) {
		return fmt.Errorf("pagestore: page %d version %d: payload does not match its version", n, v)
	}
	return nil
}

// Run runs w against s and returns what was done. Every read checks the
// payload against its version, so a torn page in memory is an error too. It
// stops at the first error of any session and returns it.
func Run(ctx context.Context, s *Store, w Workload) (Result, error) {
	if err := w.validate(); err != nil {
		return Result{}, err
	}
	pages := s.cfg.Pages
	perPage := make([]atomic.Uint64, pages)
	var reads, updates, scanned atomic.Uint64
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for c := range w.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ss := s.Session(prio.Query)
			defer ss.Close()
			rng := rand.New(rand.NewPCG(w.Seed, uint64(c)))
			var bad error
			check := func(n int64) func([]byte, uint64) {
				return func(p []byte, v uint64) {
					if err := checkPayload(n, p, v); err != nil {
						bad = err
					}
				}
			}
			err := func() error {
				for range w.Ops {
					k := rng.IntN(100)
					switch {
					case k < w.UpdatePercent:
						n := rng.Int64N(pages)
						if err := ss.Update(ctx, n, func(p []byte, v uint64) { fill(p, n, v) }); err != nil {
							return err
						}
						perPage[n].Add(1)
						updates.Add(1)
					case k < w.UpdatePercent+w.ScanPercent:
						first := rng.Int64N((pages+ExtentPages-1)/ExtentPages) * ExtentPages
						for n := first; n < min(first+int64(w.ScanPages), pages); n++ {
							if err := ss.Read(ctx, n, check(n)); err != nil {
								return err
							}
							scanned.Add(1)
						}
					default:
						n := rng.Int64N(pages)
						if err := ss.Read(ctx, n, check(n)); err != nil {
							return err
						}
						reads.Add(1)
					}
					ss.EndStatement()
					if bad != nil {
						return bad
					}
				}
				return nil
			}()
			if err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("session %d: %w", c, err))
				mu.Unlock()
				cancel()
			}
		}()
	}
	wg.Wait()
	r := Result{Reads: reads.Load(), Updates: updates.Load(), ScanPages: scanned.Load(), PerPage: make([]uint64, pages)}
	for i := range perPage {
		r.PerPage[i] = perPage[i].Load()
	}
	return r, errors.Join(errs...)
}
