package main

import (
	"context"
	"io"

	"github.com/innosim/innosim/internal/contention"
)

func profileCommand() command {
	return command{
		name:    "profile",
		summary: "print the futex-share and top contention frames of a CPU profile (FILE.pprof)",
		run: func(_ context.Context, args []string, stdout, stderr io.Writer) error {
			return contention.Run(args, stdout, stderr)
		},
	}
}
