package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/innosim/innosim/sim"
)

// costFile is a cost-profile file a command reads, and how the command line
// named it ("-costs FILE", "-vary profile=FILE").
type costFile struct{ path, named string }

// costFiles returns the cost-profile files run reads: -costs, a -profile that
// is not a built-in profile's name, or each such value of -vary profile.
func costFiles(f runFlags, varyKey string, varyVals []string) []costFile {
	isFile := func(name string) bool { _, err := sim.Profile(name); return err != nil }
	var files []costFile
	switch {
	case f.costs != "":
		files = append(files, costFile{f.costs, "-costs " + f.costs})
	case varyKey == "profile":
		for _, v := range varyVals {
			if isFile(v) {
				files = append(files, costFile{v, "-vary profile=" + v})
			}
		}
	case isFile(f.profile):
		files = append(files, costFile{f.profile, "-profile " + f.profile})
	}
	return files
}

// warnDefaultedCosts prints, for each of files, one warning line on stderr
// naming the costs the file does not give, which keep old-kernel's values: a
// profile cut at the end of a line reads as one that leaves them out on
// purpose. A file that cannot be read is left to the caller to refuse.
func warnDefaultedCosts(stderr io.Writer, command string, files []costFile) {
	for _, cf := range files {
		if _, defaulted, err := sim.LoadProfileDefaulted(cf.path); err == nil {
			warnDefaulted(stderr, command, cf, defaulted)
		}
	}
}

// warnDefaulted prints the warning of warnDefaultedCosts for cf, whose
// costs in defaulted (sim.LoadProfileDefaulted) keep old-kernel's values;
// nothing when there are none.
func warnDefaulted(stderr io.Writer, command string, cf costFile, defaulted []string) {
	if len(defaulted) == 0 {
		return
	}
	all := len(sim.ProfileKeys())
	fmt.Fprintf(stderr, "innosim %s: warning: %s gives %d of %d costs; the other %d keep old-kernel's values: %s\n",
		command, cf.named, all-len(defaulted), all, len(defaulted), strings.Join(defaulted, ", "))
}

// costsInUse says which cost profile run's cells use, for -show-settings:
// the file or built-in profile's name, and the flag that chose it.
func costsInUse(f runFlags, varyKey string) string {
	switch {
	case f.costs != "":
		return f.costs + " (-costs)"
	case varyKey == "profile":
		return "varied by -vary profile"
	case f.profile == "old-kernel":
		return "old-kernel (default)"
	}
	return f.profile + " (-profile)"
}
