//go:build !linux

package aio

// cachedRead reads from the page cache on the caller's thread on Linux
// only (preadv2 with RWF_NOWAIT); elsewhere every read is a request.
func (a *Array) cachedRead(*call, File, []byte, int64) bool { return false }

func (c *call) preadNowait(uintptr) {}

// cacheFile is what cachedRead knows of a File: nothing, here.
type cacheFile struct{}
