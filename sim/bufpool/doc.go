// Package bufpool is InnoDB's buffer pool as the simulated loads see it: a
// Pool of frames whose leaf splits find their sibling resident or not
// (buf_page_init_for_read, for btr_cur_prefetch_siblings), and a FlushList:
// the pages the load dirties (OpDirty, buf_flush_note_modification), each
// taking a frame first (buf_LRU_get_free_block: a replaceable frame, else a
// single-page flush by the thread itself, else sleeps), and the page
// cleaner (AddCleaner: buf_flush_page_coordinator_thread) that writes them a
// doublewrite batch at a time (Double_write::write_pages) through the AIO
// write array. The cleaner's round is one stage machine for both kinds of
// array; what differs is behind WriteArray (package aiosim's simulated and
// native arrays implement it), and the arrays tell the flush list of the
// writes they complete through PageSink.
package bufpool
