package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/concurrency"
	"github.com/innosim/innosim/prio"
)

// PageSize is the size of a page in bytes: InnoDB's default innodb_page_size.
const PageSize = 16 << 10

// ExtentPages is the number of pages in an extent (1 MiB of 16 KiB pages), the
// unit of linear read-ahead, as FSP_EXTENT_SIZE.
const ExtentPages = 64

// ErrInvalidConfig is wrapped by every error Open returns for a Config field out
// of range; the message names the field and the range, as
// "pagestore: Frames = 1, want 2..65536: invalid config".
var ErrInvalidConfig = errors.New("invalid config")

// Config describes a Store. Start from DefaultConfig.
type Config struct {
	// Path is the data file. Open creates it (or truncates an existing file) and
	// formats every page. Required.
	Path string
	// Pages is the size of the data file in pages: 1..1048576 (16 GiB).
	Pages int64
	// Frames is the number of buffer pool frames: 2..65536, at least 2 × Limit.
	Frames int
	// Limit is how many sessions may be inside at once
	// (innodb_thread_concurrency): 1..Frames/2. Default 8.
	Limit int
	// Tickets is how many further Reads and Updates a session makes without
	// touching the gate once admitted (innodb_concurrency_tickets): 0 selects
	// concurrency.DefaultTickets.
	Tickets int64
	// Admission is the gate policy: any but concurrency.PolicyUnlimited, which
	// would let more sessions pin frames than the pool holds. Default
	// concurrency.PolicyHandoff.
	Admission concurrency.Policy
	// ReadAheadThreshold is how many pages of an extent a session must have read
	// in order, ending at its last page, to read the next extent ahead
	// (innodb_read_ahead_threshold): 0..64, 0 turns read-ahead off. Default 56,
	// InnoDB's.
	ReadAheadThreshold int
	// FlushInterval is how often the background flusher looks for dirty pages
	// when nobody asks it to: 1ms..1m. Default 10 ms.
	FlushInterval time.Duration
	// FlushBatch is the most pages one flusher round writes: 1..1024. Default 64.
	FlushBatch int
	// Priority is the policy that applies the flusher's prio.Background hint to
	// its OS thread: PolicyOff (default; hints only order the aio queues) or
	// PolicyNice (nice 10 on Linux).
	Priority prio.Policy
	// AIO configures the Array. Its Wake is always set to aio.WakeDeferred: the
	// store ends every batch of submissions with one Flush, which wakes the
	// handlers of simulated AIO, or under native AIO (IO = aio.IONative)
	// submits the batch to the kernel, merged. Default aio.DefaultConfig().
	AIO aio.Config
}

// DefaultConfig returns a Store of pages pages in the file at path, with a pool
// of 1024 frames (16 MiB), 8 sessions inside, InnoDB's read-ahead threshold and
// the Handoff gate.
func DefaultConfig(path string, pages int64) Config {
	return Config{
		Path:               path,
		Pages:              pages,
		Frames:             1024,
		Limit:              8,
		Admission:          concurrency.PolicyHandoff,
		ReadAheadThreshold: 56,
		FlushInterval:      10 * time.Millisecond,
		FlushBatch:         64,
		AIO:                aio.DefaultConfig(),
	}
}

func invalid(field string, value any, want string) error {
	return fmt.Errorf("pagestore: %s = %v, want %s: %w", field, value, want, ErrInvalidConfig)
}

// validate reports the first field out of range. The aio and concurrency
// fields are checked by their own constructors, which wrap their own
// ErrInvalidConfig.
func (c Config) validate() error {
	switch {
	case c.Path == "":
		return invalid("Path", `""`, "a file name")
	case c.Pages < 1 || c.Pages > 1<<20:
		return invalid("Pages", c.Pages, "1..1048576")
	case c.Frames < 2 || c.Frames > 1<<16:
		return invalid("Frames", c.Frames, "2..65536")
	case c.Limit < 1 || c.Limit > c.Frames/2:
		return invalid("Limit", c.Limit, fmt.Sprintf("1..%d (Frames/2)", c.Frames/2))
	case c.Admission == concurrency.PolicyUnlimited:
		return invalid("Admission", c.Admission, "a policy with a limit")
	case c.ReadAheadThreshold < 0 || c.ReadAheadThreshold > ExtentPages:
		return invalid("ReadAheadThreshold", c.ReadAheadThreshold, "0..64")
	case c.FlushInterval < time.Millisecond || c.FlushInterval > time.Minute:
		return invalid("FlushInterval", c.FlushInterval, "1ms..1m")
	case c.FlushBatch < 1 || c.FlushBatch > 1024:
		return invalid("FlushBatch", c.FlushBatch, "1..1024")
	case c.Priority != prio.PolicyOff && c.Priority != prio.PolicyNice:
		return invalid("Priority", c.Priority, "off or nice")
	}
	return nil
}
