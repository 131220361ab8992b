//go:build !race

package engine

// raceEnabled: the race detector slows the engine about tenfold.
const raceEnabled = false
