//go:build !linux

package aio

// cachedRead reads from the page cache on the caller's thread on Linux
// only (preadv2 with RWF_NOWAIT); elsewhere every read is a request.
func (a *Array) cachedRead(*call, File, []byte, int64) int {
	_ = a.cache // the attempt's state, which only Linux keeps
	return 0
}

// arrayCache and callCache hold the attempt's state on Linux; nothing here.
type (
	arrayCache struct{}
	callCache  struct{}
)

func (*callCache) init() {}
