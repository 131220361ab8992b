//go:build !race

package main

// raceEnabled: the race detector slows the simulator about tenfold.
const raceEnabled = false
