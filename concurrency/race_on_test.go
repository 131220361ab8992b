//go:build race

package concurrency

// raceBuild reports a -race build, in which single-threaded explorations
// gain nothing from the detector and run several times slower.
const raceBuild = true
