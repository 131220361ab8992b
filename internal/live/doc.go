// Package live runs a real MariaDB server beside the simulator: a private
// mariadbd on a Unix socket in a temporary directory (its own datadir, no
// network, a small buffer pool), driven by sysbench 1.0 over a sweep of
// workloads × client threads × values of one server setting, with a warm-up
// and repeats per point. It measures what innosim run simulates (throughput in
// the workload's unit) and three figures the simulator does not print: the p95
// latency of an event as sysbench reports it, the server's CPU time per query
// from /proc/PID/stat (utime+stime, as ps and top read them), and sysbench's
// own CPU time per query (its rusage), the client's share of the same cores.
//
// Nothing is left running: the server and every sysbench run are in process
// groups of their own, killed when the context is cancelled, and the temporary
// directory is removed when Run returns, whatever the outcome.
//
// The workloads are sysbench's oltp_point_select and oltp_read_only
// (/usr/share/sysbench/*.lua) and connect, a script of our own (connect.lua:
// connect, SELECT 1, disconnect). On Debian and Ubuntu both programs install
// with "apt-get install -y mariadb-server sysbench". Live runs need Linux.
package live
