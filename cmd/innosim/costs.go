package main

import (
	"bytes"
	"fmt"
	"github.com/innosim/innosim/internal/cmdflag"
	"io"
	"strings"

	"github.com/innosim/innosim/internal/infile"
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
		if _, defaulted, err := loadProfile(cf.path); err == nil {
			warnDefaulted(stderr, command, cf, defaulted)
		}
	}
}

// warnDefaulted prints the warning of warnDefaultedCosts for cf, whose
// costs in defaulted (loadProfile) keep old-kernel's values;
// nothing when there are none.
func warnDefaulted(stderr io.Writer, command string, cf costFile, defaulted []string) {
	if len(defaulted) == 0 {
		return
	}
	all := len(sim.ProfileKeys())
	fmt.Fprintf(stderr, "innosim %s: warning: %s gives %d of %d costs; the other %d keep old-kernel's values: %s\n",
		command, cmdflag.TerminalSafe(cf.named), all-len(defaulted), all, len(defaulted), strings.Join(defaulted, ", "))
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

// maxProfileFile bounds a cost-profile file, as sim.ParseProfile does: a
// profile is a few hundred bytes.
const maxProfileFile = 1 << 20

// loadProfile reads the cost profile at path as sim.LoadProfileDefaulted
// does, the file read through infile: a named pipe, a device or a file with
// no data to give is refused instead of waiting. It returns the keys of the
// costs the file does not give (sim.ProfileKeys' order), which keep
// old-kernel's values.
func loadProfile(path string) (sim.CostProfile, []string, error) {
	data, err := infile.ReadAll(path, maxProfileFile)
	if err != nil {
		return sim.CostProfile{}, nil, err
	}
	p, err := sim.ParseProfile(bytes.NewReader(data), path)
	if err != nil {
		return sim.CostProfile{}, nil, err
	}
	given := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if k, _, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(strings.TrimSpace(line), "#") {
			given[strings.TrimSpace(k)] = true
		}
	}
	var defaulted []string
	for _, k := range sim.ProfileKeys() {
		if !given[k] {
			defaulted = append(defaulted, k)
		}
	}
	return p, defaulted, nil
}
