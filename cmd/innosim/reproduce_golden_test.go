package main

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/internal/validate"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// TestReproduceGolden holds `innosim reproduce X` to its recorded output, byte
// for byte, for each study: a refactoring of the simulator must not move a
// number, and a change that does must rewrite the files (go test -update) and
// say why in its commit. By default each study runs quick (validate.Quick:
// every cell for a twentieth of its virtual time, in seconds) against
// testdata/reproduce_X.quick.golden; with INNOSIM_FULL=1 it runs whole against
// testdata/reproduce_X.golden, where every study passes (studies A, B and D
// take seconds to tens of seconds, and run only without the race detector).
func TestReproduceGolden(t *testing.T) {
	for _, id := range []string{"a", "b", "c", "d"} {
		t.Run("study="+id, func(t *testing.T) {
			ctx, golden := validate.Quick(context.Background()), "reproduce_"+id+".quick.golden"
			if fullSize() {
				if raceEnabled && id != "c" {
					t.Skip("too slow under -race; runs in the non-race job")
				}
				ctx, golden = context.Background(), "reproduce_"+id+".golden"
			}
			code, out, stderr := runCmdContext(ctx, "reproduce", id)
			failed := regexp.MustCompile(`(?m)^study [A-D]: FAIL`).MatchString(out)
			if fullSize() {
				require.Equal(t, 0, code, stderr)
			} else {
				require.Contains(t, []int{0, 1}, code, stderr)
				assert.Equal(t, failed, code == 1, "exit status %d with a FAIL verdict %v (stderr %q)", code, failed, stderr)
			}
			path := filepath.Join("testdata", golden)
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
