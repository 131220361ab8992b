// Package threadpool is MariaDB's thread pool, in the variant of the
// release a cell models (Config.Release: sql/threadpool_generic.cc of 10.2
// on, or sql/threadpool_unix.cc of 5.5 to 10.1): groups of worker threads
// (thread_pool_size), each group's listener in epoll_wait, its queue (two
// priority queues from 10.2), too_many_threads with
// thread_pool_oversubscribe, wait_begin and wait_end around the waits the
// release's InnoDB brackets (machine.WaitKind), check_stall every
// thread_pool_stall_limit, and workers created up to
// thread_pool_max_threads. Install puts it on a machine: it is the
// machine's SessionHost (a worker runs its connection's THD: Machine.Exec)
// and its sockets' Poller (a connection waits in its group's epoll set,
// not on a thread), whether the connections' client runs on the machine
// (client.Sockets.Add) or across the network (client.Sockets.AddRemote).
package threadpool
