package main

import (
	"context"
	"io"

	"github.com/innosim/innosim/internal/benchcmp"
)

func compareCommand() command {
	return command{
		name:    "compare",
		summary: "compare two go test -bench outputs (change, confidence interval, p-value); no verdict across environments",
		run: func(_ context.Context, args []string, stdout, stderr io.Writer) error {
			return verdict(benchcmp.Run(args, stdout, stderr), benchcmp.ErrRegression)
		},
	}
}
