// Package rowlock is InnoDB's lock system for the exclusive record locks of
// one table, under kernel_mutex as in lock0lock.c (MySQL 5.1). Install puts
// it on a machine with its Table, whose row ids OpPickRow draws as sysbench's
// rnd_func_special; OpRowLock takes the row's lock, held to commit
// (lock_rec_lock), queues behind its holder (lock_rec_enqueue_waiting) or,
// when the wait would close a cycle, rolls the transaction back
// (lock_deadlock_occurs) and restarts it as sysbench retries it; OpLockRelease
// releases every lock at commit and grants each row to its first waiter
// (lock_release_off_kernel). A lock wait leaves InnoDB's gate before it
// sleeps and enters it again after (srv_conc_force_exit_innodb, through the
// gate's own ops: Machine.StepOp), and is one the thread pool is told of
// (lock_wait's THD_WAIT_ROW_LOCK). A transaction is its session's
// (Machine.Session): a pooled connection's THD, not the worker serving it.
package rowlock
