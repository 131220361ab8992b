package aio_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/innosim/innosim/aio"
)

// Submit reads through an Array and wait for their completions. The Latency
// backend does no I/O, so this runs anywhere.
func ExampleNew() {
	cfg := aio.DefaultConfig()
	cfg.Wake = aio.WakeTargeted // wake only the handler that has work
	cfg.Backend = &aio.Latency{}
	arr, err := aio.New(cfg)
	if err != nil {
		panic(err)
	}
	var wg sync.WaitGroup
	for p := range 8 {
		wg.Add(1)
		r := &aio.Request{
			Offset: int64(p) * 64 * 16 << 10, // one 64-page stripe apart: segments 2, 3, 4, 5, 2, ...
			Buf:    make([]byte, 16<<10),
			Done: func(_ *aio.Request, err error) {
				if err != nil {
					fmt.Println(err)
				}
				wg.Done()
			},
		}
		if err := arr.Submit(context.Background(), r); err != nil {
			panic(err)
		}
	}
	wg.Wait()
	if err := arr.Close(); err != nil {
		panic(err)
	}
	st := arr.Stats()
	fmt.Printf("submitted %d, completed %d, wake signals %d\n", st.Submitted, st.Completed, st.Signals)
	// Output: submitted 8, completed 8, wake signals 8
}

// Drive the policy core by hand, as the simulator does: three consecutive pages
// and one far away, one pick, one merged I/O.
func ExampleCore() {
	c, err := aio.NewCore(aio.DefaultConfig())
	if err != nil {
		panic(err)
	}
	for _, page := range []int64{2, 0, 1, 40} {
		res, err := c.Reserve(aio.SlotRequest{File: 7, Offset: page << 14, Length: 16 << 10}, 0)
		if err != nil {
			panic(err)
		}
		fmt.Printf("page %d: slot %d, segment %d, wakes %d handlers\n", page, res.Slot, res.Segment, res.Wake.Len())
	}
	b, ok := c.Pick(2, 0, true)
	fmt.Printf("handler 2 picked %v: %d requests as one %s of %d bytes at %d\n", ok, len(b.Slots), b.Op, b.Length, b.Offset)
	c.Complete(2, 0)
	st := c.Stats()
	fmt.Printf("completed %d, merges %d, still waiting %d\n", st.Completed, st.Merges, c.Waiting(2))
	// Output:
	// page 2: slot 512, segment 2, wakes 10 handlers
	// page 0: slot 513, segment 2, wakes 10 handlers
	// page 1: slot 514, segment 2, wakes 10 handlers
	// page 40: slot 515, segment 2, wakes 10 handlers
	// handler 2 picked true: 3 requests as one read of 49152 bytes at 0
	// completed 3, merges 2, still waiting 1
}

// Under WakeDeferred a batch of submissions wakes nobody; one Flush wakes
// exactly the segments that received requests, as InnoDB's read-ahead does
// with wake_later, but targeted.
func ExampleCore_Flush() {
	cfg := aio.DefaultConfig()
	cfg.Wake = aio.WakeDeferred
	c, err := aio.NewCore(cfg)
	if err != nil {
		panic(err)
	}
	for _, stripe := range []int64{0, 2, 2, 6} { // 64-page stripes → read segments 2, 4, 4, 4
		res, _ := c.Reserve(aio.SlotRequest{Offset: stripe << 20, Length: 16 << 10}, 0)
		fmt.Print(res.Wake.Len(), " ")
	}
	set := c.Flush(aio.ArrayRead)
	fmt.Print("| flush wakes:")
	for s := set.Next(0); s >= 0; s = set.Next(s + 1) {
		fmt.Print(" ", s)
	}
	fmt.Println()
	// Output: 0 0 0 0 | flush wakes: 2 4
}
