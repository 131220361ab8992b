// Package redolog is InnoDB's redo log at commit: log_sys as log_write_up_to
// sees it (log0log.c, MySQL 5.1), with group commit. Install puts it on a
// machine with its mutex, log_sys->mutex, and the commit setting
// (innodb_flush_log_at_trx_commit, Config); it runs OpLogCommit: under the
// mutex the commit record gets the next lsn; with 1 the log is written and
// fsynced on the device, with 2 written at every commit, with 0 neither; a
// commit whose record another thread's write covers, or will cover, waits
// for it on no_flush_event instead of writing. That wait is one the thread
// pool is told of (group_commit_lock::acquire's THD_WAIT_GROUP_COMMIT,
// Machine.WaitBegin).
package redolog
