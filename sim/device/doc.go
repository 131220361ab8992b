// Package device is a simulated storage device: Units parallel units that
// serve one first-in-first-out queue of I/Os (an array's disks, a drive's
// internal queue depth), each I/O holding one unit for a service time drawn
// from its kind's nominal time (Config.Dist: uniform, fixed, or exponential
// as the M/M/c queue's memoryless service). Install puts one on a machine:
// it runs OpRead, OpWrite and OpFsync (a system call, then blocked until the
// I/O completes), and the other mechanisms given it queue their I/Os on it
// (IO for a waiting thread, Submit for an I/O no thread waits for, as native
// AIO's). It counts every I/O it completes in the machine's figures.
package device
