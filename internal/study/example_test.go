package study_test

import (
	"context"
	"fmt"

	"github.com/innosim/innosim/internal/study"
)

// Reproduce study C and print its verdict.
func ExampleStudy_Run() {
	s, err := study.Lookup("c")
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := s.Run(context.Background(), study.Options{Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rep.Verdict())
	// Output: study C: PASS
}
