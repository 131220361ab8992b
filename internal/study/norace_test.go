//go:build !race

package study

// raceEnabled: the race detector slows the simulator about tenfold.
const raceEnabled = false
