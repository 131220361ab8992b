//go:build linux

package main

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/innosim/innosim/prio"
)

// Checkpoint makes the pages it wrote durable: once it returns, the data
// file has no dirty page in the page cache (cachestat(2), Linux 6.5). It
// wrote them and left the kernel to write them back whenever.
func TestCheckpointLeavesNoDirtyPage(t *testing.T) {
	cfg := smallConfig(t)
	s, err := Open(cfg)
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Close()) }()
	ss := s.Session(prio.Query)
	for n := range int64(32) {
		require.NoError(t, ss.Update(context.Background(), n, func(p []byte, v uint64) { fill(p, n, v) }))
	}
	ss.Close()
	require.NoError(t, s.Checkpoint(context.Background()))
	f, err := os.Open(cfg.Path)
	require.NoError(t, err)
	defer f.Close()
	var st unix.Cachestat_t
	err = unix.Cachestat(uint(f.Fd()), &unix.CachestatRange{}, &st, 0)
	if errors.Is(err, unix.ENOSYS) {
		t.Skip("no cachestat(2) here (Linux 6.5)")
	}
	require.NoError(t, err)
	require.Zero(t, st.Dirty+st.Writeback, "dirty pages after Checkpoint")
}
