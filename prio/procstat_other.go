//go:build !linux

package prio

// StatNice reads thread tid's nice value from /proc/self/task/TID/stat (field 19,
// proc(5)), a second witness besides getpriority that the kernel holds the nice a
// policy set. It returns ErrNotSupported off Linux.
func StatNice(tid int) (int, error) { return 0, ErrNotSupported }
