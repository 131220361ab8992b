//go:build race

package contention

// raceEnabled reports a -race build, whose runtime spends most samples in the
// race detector's C code, where the Go frames above are often not unwound.
const raceEnabled = true
