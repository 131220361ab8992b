//go:build linux

package innosim_test

import "golang.org/x/sys/unix"

// statDev is the device number of the file system a path is on.
type statDev struct{ major, minor uint32 }

func (s *statDev) of(path string) error {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return err
	}
	s.major, s.minor = unix.Major(st.Dev), unix.Minor(st.Dev)
	return nil
}
