//go:build !linux

package innosim_test

import "errors"

// statDev is the device number of the file system a path is on (Linux only).
type statDev struct{ major, minor uint32 }

func (s *statDev) of(string) error { return errors.New("device numbers are read on Linux only") }
