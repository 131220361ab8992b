// Package threadpool is MariaDB's thread pool (sql/threadpool_generic.cc,
// 10.11) for connections whose client runs on the machine: groups of worker
// threads (thread_pool_size), each group's listener in epoll_wait, its high
// and low priority queues, too_many_threads with thread_pool_oversubscribe,
// wait_begin and wait_end around the waits InnoDB brackets, check_stall
// every thread_pool_stall_limit, and workers created up to
// thread_pool_max_threads. Install puts it on a machine: it is the
// machine's SessionHost (a worker runs its connection's THD: Machine.Exec)
// and its sockets' Poller (a connection waits in its group's epoll set, not
// on a thread).
package threadpool
