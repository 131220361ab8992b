package main

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/concurrency"
	"github.com/innosim/innosim/internal/futex"
	"github.com/innosim/innosim/prio"
	"github.com/stretchr/testify/require"
)

// smallConfig is a store small enough that a short workload evicts, reads
// ahead, waits for the gate and flushes in the background.
func smallConfig(t *testing.T) Config {
	cfg := DefaultConfig(filepath.Join(t.TempDir(), "pages.ibd"), 512)
	cfg.Frames, cfg.Limit, cfg.Tickets = 48, 4, 20
	cfg.ReadAheadThreshold = 32
	cfg.FlushInterval, cfg.FlushBatch = 2*time.Millisecond, 16
	return cfg
}

// A mixed workload from many sessions, then a clean Close: every page in the
// file has a good checksum, names itself, holds the payload of its version,
// and its version is exactly the number of Updates made to it. Nothing lost,
// nothing torn.
func TestMixedWorkloadLosesNothing(t *testing.T) {
	handlers := aio.HandlerGoroutine
	if futex.Supported() {
		handlers = aio.HandlerFutex
	}
	tests := []struct {
		name   string
		change func(*Config)
	}{
		{"handoff gate, goroutine handler threads", func(*Config) {}},
		{"queue gate with 5 tickets, futex handler threads where supported", func(c *Config) {
			c.Admission, c.Tickets, c.AIO.Handlers = concurrency.PolicyQueue, 5, handlers
		}},
		{"atomic gate, one read and one write segment of 4 slots (arrays fill up)", func(c *Config) {
			c.Admission = concurrency.PolicyAtomic
			c.AIO.ReadSegments, c.AIO.WriteSegments, c.AIO.SlotsPerSegment = 1, 1, 4
		}},
		{"flusher under nice (a refusal is reported, not fatal)", func(c *Config) { c.Priority = prio.PolicyNice }},
		{"read-ahead off, the smallest pool the limit allows", func(c *Config) {
			c.ReadAheadThreshold, c.Frames, c.Limit = 0, 8, 4
		}},
		{"native AIO (io_uring) where the kernel allows it", func(c *Config) { c.AIO.IO = aio.IONative }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := smallConfig(t)
			tt.change(&cfg)
			s, err := Open(cfg)
			if errors.Is(err, aio.ErrNativeUnavailable) {
				t.Skipf("native AIO unavailable here: %v", err)
			}
			require.NoError(t, err)
			res, err := Run(context.Background(), s, Workload{Clients: 8, Ops: 100,
				UpdatePercent: 40, ScanPercent: 5, ScanPages: 80, Seed: 7})
			require.NoError(t, err)
			st := s.Stats()
			require.NoError(t, s.Close())
			require.NoError(t, s.Close(), "a second Close returns the same")

			require.Positive(t, res.Updates)
			require.Positive(t, st.Evictions, "the pool is smaller than the file")
			if cfg.ReadAheadThreshold > 0 {
				require.Positive(t, st.ReadAheads, "scans read the next extent ahead")
			} else {
				require.Zero(t, st.ReadAheads)
			}
			require.Zero(t, st.WriteErrors)
			require.Zero(t, st.LoadErrors)
			require.Zero(t, st.Admission.Inside, "every session gave its seat back")
			require.Equal(t, st.Admission.Enters+st.Admission.ForceEnters, st.Admission.Exits)

			final := s.Stats()
			require.Zero(t, final.Dirty, "Close wrote every dirty page")
			require.Equal(t, final.AIO.Submitted, final.AIO.Completed, "every read and write completed: %+v", final.AIO)
			require.Zero(t, final.AIO.InFlight)

			versions, err := Verify(cfg.Path, cfg.Pages, checkPayload)
			require.NoError(t, err)
			require.Equal(t, res.PerPage, versions, "each page's version is the number of its updates")
		})
	}
}

func TestOpenRejectsBadConfig(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Config)
		want   string
		is     error
	}{
		{"no path", func(c *Config) { c.Path = "" }, "Path", ErrInvalidConfig},
		{"no pages", func(c *Config) { c.Pages = 0 }, "Pages = 0, want 1..1048576", ErrInvalidConfig},
		{"one frame", func(c *Config) { c.Frames = 1 }, "Frames = 1, want 2..65536", ErrInvalidConfig},
		{"more inside than half the frames", func(c *Config) { c.Frames, c.Limit = 8, 5 }, "Limit = 5, want 1..4 (Frames/2)", ErrInvalidConfig},
		{"no limit at all", func(c *Config) { c.Limit = 0 }, "Limit = 0", ErrInvalidConfig},
		{"an unlimited gate", func(c *Config) { c.Admission = concurrency.PolicyUnlimited }, "Admission = unlimited", ErrInvalidConfig},
		{"read-ahead threshold past an extent", func(c *Config) { c.ReadAheadThreshold = 65 }, "ReadAheadThreshold = 65, want 0..64", ErrInvalidConfig},
		{"flush interval zero", func(c *Config) { c.FlushInterval = 0 }, "FlushInterval = 0s, want 1ms..1m", ErrInvalidConfig},
		{"flush batch zero", func(c *Config) { c.FlushBatch = 0 }, "FlushBatch = 0, want 1..1024", ErrInvalidConfig},
		{"legacy priorities", func(c *Config) { c.Priority = prio.PolicyLegacy }, "Priority = legacy, want off or nice", ErrInvalidConfig},
		{"tickets out of range", func(c *Config) { c.Tickets = -1 }, "Tickets = -1", concurrency.ErrInvalidConfig},
		{"no read segments", func(c *Config) { c.AIO.ReadSegments = 0 }, "ReadSegments = 0, want 1..64", aio.ErrInvalidConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := smallConfig(t)
			tt.change(&cfg)
			s, err := Open(cfg)
			require.Nil(t, s)
			require.ErrorIs(t, err, tt.is)
			require.ErrorContains(t, err, tt.want)
		})
	}
}

func TestSessionRejectsAPageOutOfRange(t *testing.T) {
	s, err := Open(smallConfig(t))
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Close()) }()
	ss := s.Session(prio.Query)
	defer ss.Close()
	for _, n := range []int64{-1, 512} {
		require.ErrorIs(t, ss.Read(context.Background(), n, func([]byte, uint64) {}), ErrPageRange)
	}
}
