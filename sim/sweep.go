package sim

import (
	"context"
	"runtime"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
)

// RunCells runs the cells in parallel, at most GOMAXPROCS at a time, and returns
// their results in the order of cells: each cell is its own machine with its own
// seed, so the results do not depend on the parallelism. progress, if not nil, is
// called after each cell with the number done so far (from several goroutines;
// it must be safe for that). Every cell is validated once (Cell.Validate),
// before the first runs, so a bad cell late in a long sweep is refused at once
// (a *CellError naming the first);
// each is then built once and run. The first
// error cancels the rest and is returned; when ctx ends, the running cells stop
// within milliseconds and ctx.Err() is returned.
func RunCells(ctx context.Context, cells []Cell, progress func(done int)) ([]Result, error) {
	for i, c := range cells {
		if err := c.Validate(); err != nil {
			return nil, &CellError{Index: i, Len: len(cells), Err: err}
		}
	}
	out := make([]Result, len(cells))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	var done atomic.Int64
	for i := range cells {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			r, err := cells[i].run(ctx)
			if err != nil {
				return err
			}
			out[i] = r
			n := done.Add(1)
			if progress != nil {
				progress(int(n))
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}
