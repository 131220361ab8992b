package aio_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/innosim/innosim/aio"
)

// BenchmarkCoreCycle is one request through the policy core alone: Reserve,
// Pick, Complete, with pending requests spread over the read segments. It is
// the core's share of every real or simulated request, and must not allocate.
func BenchmarkCoreCycle(b *testing.B) {
	for _, pending := range []int{1, 64, 255} {
		for _, segs := range []int{4, 64} {
			b.Run(fmt.Sprintf("pending=%d/segments=%d", pending, segs), func(b *testing.B) {
				c := newCore(b, func(c *aio.Config) { c.ReadSegments = segs; c.Wake = aio.WakeTargeted; c.MergeLimit = 1 })
				first, _ := c.ArraySegments(aio.ArrayRead)
				// Keep pending-1 requests waiting in segment 0 at high offsets,
				// so every pick scans past them.
				for i := range pending - 1 {
					reserve(b, c, read(int64(i+1)*page*int64(segs)*64), 0)
				}
				b.ReportAllocs()
				b.ResetTimer()
				for i := range b.N {
					now := time.Duration(i)
					if _, err := c.Reserve(read(int64(i%64)*page), now); err != nil {
						b.Fatal(err)
					}
					if _, ok := c.Pick(first, now, true); !ok {
						b.Fatal("nothing picked")
					}
					c.Complete(first, 0)
				}
			})
		}
	}
}
