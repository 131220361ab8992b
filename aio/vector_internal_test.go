//go:build linux

package aio

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAdvanceDropsTransferredBytes(t *testing.T) {
	tests := []struct {
		name string
		n    int
		want []int // lengths left
	}{
		{"nothing", 0, []int{4, 4, 4}},
		{"into the first buffer", 3, []int{1, 4, 4}},
		{"exactly the first buffer", 4, []int{4, 4}},
		{"into the second", 6, []int{2, 4}},
		{"everything", 12, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bufs := [][]byte{make([]byte, 4), make([]byte, 4), make([]byte, 4)}
			var got []int
			for _, b := range advance(bufs, tt.n) {
				got = append(got, len(b))
			}
			require.Equal(t, tt.want, got)
		})
	}
}
