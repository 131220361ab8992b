package prio_test

import (
	"context"
	"fmt"

	"github.com/innosim/innosim/prio"
)

func ExampleHint_Nice() {
	for _, h := range []prio.Hint{prio.Background, prio.Normal, prio.Query} {
		fmt.Printf("%-10s nice %3d  weight %4d  TS level %d\n", h, h.Nice(), h.Weight(), h.TSLevel())
	}
	// Output:
	// background nice  10  weight  110  TS level 0
	// normal     nice   0  weight 1024  TS level 29
	// query      nice  -5  weight 3121  TS level 44
}

func ExampleWeightOfNice() {
	w, _ := prio.WeightOfNice(0)
	fmt.Println(w)
	_, err := prio.WeightOfNice(25)
	fmt.Println(err)
	// Output:
	// 1024
	// prio: nice = 25, want -20..19: invalid config
}

func ExampleWithHint() {
	ctx := prio.WithHint(context.Background(), prio.Query)
	h, ok := prio.FromContext(ctx)
	fmt.Println(h, ok)
	// Output: query true
}

func ExamplePolicy_Plan() {
	var thread prio.State // SCHED_OTHER, nice 0
	for _, p := range []prio.Policy{prio.PolicyOff, prio.PolicyLegacy, prio.PolicyNice, prio.PolicyIdle} {
		c, ok := p.Plan(prio.Query, thread, false)
		if !ok {
			fmt.Printf("%-6s no call\n", p)
			continue
		}
		fmt.Printf("%-6s %v nice=%d priority=%d\n", p, c.Call, c.Nice, c.Priority)
	}
	// Output:
	// off    no call
	// legacy sched_setparam nice=0 priority=6
	// nice   setpriority nice=-5 priority=0
	// idle   no call
}

// A connection thread runs each query under the Query hint. With PolicyOff (the
// default, and what MySQL does today) the hint only travels in the context.
func ExampleApplier_Do() {
	a, err := prio.New(prio.Config{Policy: prio.PolicyOff})
	if err != nil {
		fmt.Println(err)
		return
	}
	err = a.Do(context.Background(), prio.Query, func(ctx context.Context) error {
		h, _ := prio.FromContext(ctx)
		fmt.Println("running at", h)
		return nil
	})
	fmt.Println(err, a.Stats())
	// Output:
	// running at query
	// <nil> {0 0 1}
}
