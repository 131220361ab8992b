//go:build !unix

package infile

import "testing"

// mkfifo returns "": no named pipes here.
func mkfifo(*testing.T, string) string { return "" }
