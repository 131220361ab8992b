package main

import (
	"io"
	"os"
	"sync"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress returns a callback that draws a progress bar on stderr when stderr is
// a terminal, and nil otherwise (so that redirected output stays clean).
func progress(stderr io.Writer, label string) (update func(done, total int), finish func()) {
	f, ok := stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil, func() {}
	}
	var mu sync.Mutex
	var bar *progressbar.ProgressBar
	update = func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if bar == nil {
			bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(f),
				progressbar.OptionSetDescription(label), progressbar.OptionClearOnFinish(),
				progressbar.OptionShowCount())
		}
		_ = bar.Set(done)
	}
	finish = func() {
		mu.Lock()
		defer mu.Unlock()
		if bar != nil {
			_ = bar.Finish()
		}
	}
	return update, finish
}
