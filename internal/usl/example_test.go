package usl_test

import (
	"context"
	"fmt"

	"github.com/innosim/innosim/internal/usl"
)

// The codahale/usl dataset's first points and a fit of the Universal
// Scalability Law.
func ExampleFit() {
	n := []float64{1, 2, 4, 8, 16, 32}
	x := []float64{955.16, 1878.91, 3548.68, 6531.08, 9897.24, 12074.39}
	m, err := usl.Fit(context.Background(), n, x)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("λ ≈ %.0f, peak near N = %.0f\n", m.Lambda, m.Peak())
	// Output: λ ≈ 982, peak near N = 34
}
