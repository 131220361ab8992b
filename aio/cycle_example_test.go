package aio_test

import (
	"fmt"
	"time"

	"github.com/innosim/innosim/aio"
)

// A driver steps a segment handler's cycle and does only the blocking itself;
// here the blocking is elided and one request goes through.
func ExampleHandlerCycle() {
	cfg := aio.DefaultConfig()
	cfg.Wake = aio.WakeTargeted
	core, err := aio.NewCore(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := core.Reserve(aio.SlotRequest{Op: aio.Read, Kind: aio.KindNormal, File: 1, Length: 16 << 10}, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	c := aio.NewHandlerCycle(core, res.Segment)
	clock := func() time.Duration { return 0 }
	c.Woken() // the submitter set the segment's event; the handler's wait returned
	for range 2 {
		switch step := c.Next(clock, false); step.Action {
		case aio.HandlerIssue:
			fmt.Println("issue", len(c.Batch().Slots), "request(s)")
			c.Complete(0) // after the I/O, with the segment's lock taken again
		case aio.HandlerSleep:
			fmt.Println("sleep; core called:", step.Picked)
		}
	}
	// Output:
	// issue 1 request(s)
	// sleep; core called: false
}
