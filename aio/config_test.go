package aio_test

import (
	"testing"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/stretchr/testify/require"
)

func TestDefaultConfigIsValidAndInnoDBs(t *testing.T) {
	cfg := aio.DefaultConfig()
	require.NoError(t, cfg.Validate())
	require.Equal(t, 4, cfg.ReadSegments)
	require.Equal(t, 4, cfg.WriteSegments)
	require.True(t, cfg.IbufSegment)
	require.True(t, cfg.LogSegment)
	require.Equal(t, 256, cfg.SlotsPerSegment)
	require.Equal(t, int64(16384), cfg.PageSize)
	require.Equal(t, 64, cfg.MergeLimit)
	require.Equal(t, 2*time.Second, cfg.OldAge)
	require.Equal(t, aio.WakeAll, cfg.Wake)
	require.Equal(t, 10, cfg.Segments())
}

func TestConfigOutOfRangeIsAnErrorNamingTheField(t *testing.T) {
	tests := []struct {
		name   string
		change func(*aio.Config)
		msg    string
	}{
		{"zero read segments", func(c *aio.Config) { c.ReadSegments = 0 }, "aio: ReadSegments = 0, want 1..64: invalid config"},
		{"65 read segments", func(c *aio.Config) { c.ReadSegments = 65 }, "ReadSegments = 65, want 1..64"},
		{"zero write segments", func(c *aio.Config) { c.WriteSegments = 0 }, "WriteSegments = 0, want 1..64"},
		{"zero slots", func(c *aio.Config) { c.SlotsPerSegment = 0 }, "SlotsPerSegment = 0, want 1..4096"},
		{"too many slots", func(c *aio.Config) { c.SlotsPerSegment = 4097 }, "SlotsPerSegment = 4097"},
		{"page not a power of two", func(c *aio.Config) { c.PageSize = 12288 }, "PageSize = 12288, want a power of two in 4096..65536"},
		{"page too small", func(c *aio.Config) { c.PageSize = 2048 }, "PageSize = 2048"},
		{"page too large", func(c *aio.Config) { c.PageSize = 128 << 10 }, "PageSize = 131072"},
		{"zero merge limit", func(c *aio.Config) { c.MergeLimit = 0 }, "MergeLimit = 0, want 1..1024"},
		{"zero old age", func(c *aio.Config) { c.OldAge = 0 }, "OldAge = 0s, want 1ms..1h"},
		{"old age too long", func(c *aio.Config) { c.OldAge = 2 * time.Hour }, "OldAge = 2h0m0s"},
		{"unknown wake policy", func(c *aio.Config) { c.Wake = 9 }, "Wake = wake(9)"},
		{"unknown handler mode", func(c *aio.Config) { c.Handlers = 7 }, "Handlers = mode(7)"},
		// a Latency literal skips NewLatency's check: a negative service time
		// was accepted and served at once, a nil one panicked in the handler
		{"negative latency", func(c *aio.Config) { c.Backend = &aio.Latency{Service: -time.Millisecond} }, "Latency.Service = -1ms, want ≥ 0"},
		{"nil latency", func(c *aio.Config) { c.Backend = (*aio.Latency)(nil) }, "Backend = (*Latency)(nil)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := aio.DefaultConfig()
			tt.change(&cfg)
			err := cfg.Validate()
			require.ErrorIs(t, err, aio.ErrInvalidConfig)
			require.Contains(t, err.Error(), tt.msg)
			_, err = aio.NewCore(cfg)
			require.ErrorIs(t, err, aio.ErrInvalidConfig)
			_, err = aio.New(cfg)
			require.ErrorIs(t, err, aio.ErrInvalidConfig)
		})
	}
}

func TestZeroConfigIsRejectedNotClamped(t *testing.T) {
	_, err := aio.NewCore(aio.Config{})
	require.ErrorIs(t, err, aio.ErrInvalidConfig)
}

func TestNewLatencyRejectsBadValues(t *testing.T) {
	_, err := aio.NewLatency(-time.Second, 1)
	require.ErrorIs(t, err, aio.ErrInvalidConfig)
	_, err = aio.NewLatency(0, 0)
	require.ErrorIs(t, err, aio.ErrInvalidConfig)
	l, err := aio.NewLatency(time.Millisecond, 3)
	require.NoError(t, err)
	require.Equal(t, 3, l.Units())
}
