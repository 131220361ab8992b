package main

import (
	"context"
	"io"

	"github.com/innosim/innosim/internal/calibrate"
)

func calibrateCommand() command {
	return command{
		name:    "calibrate",
		summary: "measure this machine's costs, write a cost profile (--out), hold the simulator against BenchmarkAIOWake (--check)",
		run: func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
			return verdict(calibrate.Run(ctx, args, stdout, stderr), calibrate.ErrCheckFailed)
		},
	}
}
