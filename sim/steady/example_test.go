package steady_test

import (
	"fmt"

	"github.com/innosim/innosim/sim/steady"
)

// A throughput series sampled in windows: a ramp over its first 100
// windows, then flat with a small wobble. MSER-5 cuts the ramp off and
// reports the series steady; cut short inside the ramp, the same series is
// not.
func ExampleMSER5() {
	obs := make([]float64, 800)
	for i := range obs {
		obs[i] = 1000 + float64(i%3) // the wobble
		if i < 100 {
			obs[i] = 10 * float64(i)
		}
	}
	tr, err := steady.MSER5(obs)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("steady from observation %d (bound %d): %v, mean %.0f\n", tr.Point, tr.Bound, tr.Steady, tr.Mean)

	ramp := make([]float64, 500)
	for i := range ramp {
		ramp[i] = 2 * float64(i)
	}
	tr, _ = steady.MSER5(ramp)
	fmt.Printf("a ramp: steady %v\n", tr.Steady)
	// Output:
	// steady from observation 100 (bound 400): true, mean 1001
	// a ramp: steady false
}
