// Package workload holds the built-in loads: sysbench's and mysqlslap's
// statements and the field cases' shapes, each a documented per-unit
// program of machine.Ops that every client thread runs in a loop. A
// Workload declares what its program uses (Uses: the gate, AIO, the redo
// log, the buffer pool, row locks on its Rows, the device, a client round
// trip or think time), so that a cell installs what it needs and refuses
// what it would ignore without reading the program; a test holds each
// declaration to its program. Setup writes the program with the mutexes an
// Env gives it.
package workload
