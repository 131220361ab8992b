//go:build !race

package sim

// raceEnabled: the race detector slows the simulator about tenfold.
const raceEnabled = false
