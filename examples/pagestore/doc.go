// Command pagestore is a small storage engine built on innosim, the prototype to
// copy when embedding the aio, concurrency and prio packages. It keeps
// fixed-size pages in one real file and serves them from a buffer pool:
//
//	client goroutines ── Session ──► concurrency gate (seats, tickets)
//	                                      │ inside
//	                                      ▼
//	                   buffer pool: Frames frames, page table, LRU list
//	          miss │            ▲ dirty               │ read-ahead
//	               ▼            │                     ▼
//	   aio read array (prio.High)  flusher (prio.Background)  aio read array (prio.Background)
//	               │            │ write-back                  │ deferred wake, one Flush
//	               ▼            ▼                             ▼
//	                        the data file (pread / pwrite)
//
// # The model
//
// A page is PageSize (16 KiB) bytes: a header with the page number and a
// per-page modification count (where InnoDB keeps FIL_PAGE_OFFSET and
// FIL_PAGE_LSN), a payload, and a CRC-32C checksum in the last four bytes,
// computed when the page is written out, as InnoDB's buf_flush_init_for_writing
// does with innodb_checksum_algorithm=crc32. A torn or lost write shows up as a
// checksum or version mismatch when the file is verified (Verify).
//
// Clients work through a Session, which holds a concurrency.Thread: every
// Read or Update enters the gate first (innodb_thread_concurrency with
// tickets) and exits after, so at most Config.Limit sessions are inside, and
// each pins at most one frame while inside. That is why Frames must be at
// least twice the limit: half the pool can always be pinned and the rest can
// still be evicted or read into.
//
// A miss takes a victim frame from the cold end of the LRU list (a frame that
// is unpinned, clean, and has no I/O in flight) and reads the page through an
// aio.Array at prio.High. The Array runs under aio.WakeDeferred: nothing is
// woken on submission, and every batch of submissions ends with one Flush,
// which wakes exactly the segments that received work. For a foreground read
// the batch is one page; for linear read-ahead it is the whole next extent (64
// pages) at prio.Background, submitted when a session has read
// ReadAheadThreshold pages of an extent in order and reaches its last page, as
// buf_read_ahead_linear does (innodb_read_ahead_threshold).
//
// Dirty pages are written back through the Array's write segments by a
// background flusher (one goroutine, its OS thread under prio.Background when
// Config.Priority is PolicyNice; PolicyOff by default, so it runs anywhere) and
// by Checkpoint. The flusher copies a page under its latch into the frame's
// write buffer, so clients keep updating the frame while the write is in
// flight; a frame with a write in flight is not written again and not evicted,
// so two writes of one page never race in the file. When the write completes,
// the frame is marked clean only if the write succeeded and nobody changed the
// page since the copy. A page whose write failed stays dirty and resident, and
// the error reaches the caller: Checkpoint returns it, and Close returns the
// first error of the background flusher. Checkpoint ends with a sync of the
// data file through the Array (Array.Sync), once every write it waited for
// has completed: the pages are then durable, as InnoDB's flush batch ends
// with fil_flush.
//
// # Lock order
//
// A frame's latch (its content) before the pool mutex (page table, LRU list,
// pins, dirty and I/O flags). aio completions run on handler threads and take
// only the pool mutex, never a latch, so they never wait for a client.
//
// Run it with
//
//	go run ./examples/pagestore                 # 8 clients, 2000 operations each
//	go run ./examples/pagestore -priority nice  # flusher at nice 10
package main
