//go:build linux

package prio

// ParseStatNice exposes parseStatNice to the external tests.
var ParseStatNice = parseStatNice
