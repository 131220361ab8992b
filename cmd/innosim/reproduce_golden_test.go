package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// TestReproduceGolden holds `innosim reproduce X` to its recorded output, byte
// for byte, for each study: a refactoring of the simulator must not move a
// number, and a change that does must rewrite the files (go test -update) and
// say why in its commit. Studies A, B and D take seconds to tens of seconds
// and run only without the race detector (go test ./cmd/innosim).
func TestReproduceGolden(t *testing.T) {
	for _, id := range []string{"a", "b", "c", "d"} {
		t.Run("study="+id, func(t *testing.T) {
			if raceEnabled && id != "c" {
				t.Skip("too slow under -race; runs in the non-race job")
			}
			if testing.Short() && id != "c" {
				t.Skip("-short: only study C")
			}
			code, out, stderr := runCmd("reproduce", id)
			require.Equal(t, 0, code, stderr)
			path := filepath.Join("testdata", "reproduce_"+id+".golden")
			if *update {
				require.NoError(t, os.WriteFile(path, []byte(out), 0o644))
				return
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, string(want), out, "reproduce %s differs from %s (go test -update rewrites it)", id, path)
		})
	}
}
