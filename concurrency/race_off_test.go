//go:build !race

package concurrency

// raceBuild reports a -race build (see race_on_test.go).
const raceBuild = false
