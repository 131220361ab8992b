// Package client is the benchmark client on the simulated machine, as
// sysbench runs when a study runs it on the server's host: a connection is a
// server thread and a client thread on a Unix stream socket
// (net/unix/af_unix.c). ServerProgram turns a workload's program into a
// connection's server side (its waits for the client into receives, the
// replies before them into sends); Sockets.Add adds a connection, the client
// thread running Config.Event of CPU per unit, a send and a receive per
// request; the sockets run OpSockSend and OpSockRecv, whose wake is a
// WF_SYNC one (sock_def_readable). A connection a thread pool serves has no
// server thread: its socket's packets make it readable to the Poller, which
// lends it a worker.
package client
