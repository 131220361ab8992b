package bufpool

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A split's sibling is resident exactly when fewer pages than the pool holds
// were brought in since its table's previous split: threads splitting in turn
// bring in one new leaf each (and a sibling per miss).
func TestBufPoolSiblingIsResidentWhileThePoolHoldsTheInterleaving(t *testing.T) {
	for _, tt := range []struct {
		name            string
		frames          int64
		threads, rounds int
		misses          uint64
	}{
		{"one table keeps its previous leaf in two frames", 2, 1, 5, 0},
		{"one frame holds only the new leaf", 1, 1, 5, 4},
		{"eight tables fit in sixteen frames", 16, 8, 5, 0},
		{"eight tables overflow four frames after their first split", 4, 8, 5, 8 * 4},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := &Pool{frames: tt.frames}
			for range tt.rounds {
				for id := range tt.threads {
					b.Split(int32(id))
				}
			}
			assert.Equal(t, tt.misses, b.Misses)
			assert.Equal(t, uint64(tt.threads*tt.rounds)-tt.misses, b.Hits)
		})
	}
}
