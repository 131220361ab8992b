package benchenv

import (
	"os"
	"runtime"
	"runtime/debug"
	"strings"
)

// Runtime holds the fingerprint's values that come from the Go runtime and the
// process environment rather than from files. The zero value gives Unknown for the
// first four and "none" for the last two.
type Runtime struct {
	GoVersion    string // runtime.Version(), e.g. "go1.26.8"
	GOOS         string // runtime.GOOS
	GOARCH       string // runtime.GOARCH
	GOMAXPROCS   int    // runtime.GOMAXPROCS(0); ≤ 0 means unknown
	GOEXPERIMENT string // experiments the binary was built with, "" for the defaults
	GODEBUG      string // effective GODEBUG settings, "" for none
}

// CurrentRuntime returns the Runtime of this process. GOEXPERIMENT is the build
// setting recorded in the binary (runtime/debug.ReadBuildInfo), since setting the
// variable at run time changes nothing; GODEBUG is the binary's DefaultGODEBUG
// followed by the GODEBUG environment variable, which the runtime reads at start
// and which wins where both name a setting.
func CurrentRuntime() Runtime {
	rt := Runtime{
		GoVersion:  runtime.Version(),
		GOOS:       runtime.GOOS,
		GOARCH:     runtime.GOARCH,
		GOMAXPROCS: runtime.GOMAXPROCS(0),
	}
	var defaultGODEBUG string
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			switch s.Key {
			case "GOEXPERIMENT":
				rt.GOEXPERIMENT = s.Value
			case "DefaultGODEBUG":
				defaultGODEBUG = s.Value
			}
		}
	}
	rt.GODEBUG = joinSettings(defaultGODEBUG, os.Getenv("GODEBUG"))
	return rt
}

// joinSettings joins comma-separated GODEBUG lists, skipping empty ones.
func joinSettings(lists ...string) string {
	var parts []string
	for _, l := range lists {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, ",")
}
