package mycnf_test

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/mycnf"
	"github.com/innosim/innosim/sim"
)

// Every value mycnf accepts is accepted by the packages its settings go to (the
// simulator, concurrency, aio), so that a value they would refuse is refused
// by mycnf, at its file and line: innodb_sync_spin_loops = 10001 used to pass
// mycnf and then fail in the simulator with no position.
func TestEveryAcceptedValueIsAcceptedDownstream(t *testing.T) {
	for _, k := range mycnf.KeyRanges() {
		if k.Bool {
			continue
		}
		for _, v := range k.Enum {
			t.Run(k.Name+"="+v, func(t *testing.T) {
				s := mycnf.Defaults()
				require.NoError(t, s.Set(k.Name, v))
				for _, w := range []string{"oltp_read_only", "oltp_insert"} {
					c, err := sim.CellFromSettings(s, w)
					require.NoError(t, err, w)
					c.Threads, c.Machine.CPUs = 2, 2
					assert.NoError(t, c.Validate(), w)
				}
			})
		}
		if k.Enum != nil {
			continue
		}
		for _, v := range []int64{k.Min, k.Max} {
			if k.Name == "innodb_page_size" && v != 4096 && v&(v-1) != 0 {
				continue
			}
			t.Run(k.Name+"="+strconv.FormatInt(v, 10), func(t *testing.T) {
				s := mycnf.Defaults()
				require.NoError(t, s.Set("innodb_thread_concurrency", "8"), "so that the gate is built")
				require.NoError(t, s.Set(k.Name, strconv.FormatInt(v, 10)))
				if k.Name == "innodb_thread_concurrency" && v == 0 {
					require.NoError(t, s.Set("innodb_thread_concurrency", "0"))
				}
				_, err := s.AIOConfig()
				assert.NoError(t, err)
				_, err = s.ConcurrencyConfig()
				assert.NoError(t, err)
				for _, w := range []string{"oltp_read_only", "oltp_insert"} {
					_, err = sim.CellFromSettings(s, w)
					assert.NoError(t, err, w)
				}
			})
		}
	}
}
