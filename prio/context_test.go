package prio_test

import (
	"context"
	"testing"

	"github.com/innosim/innosim/prio"
	"github.com/stretchr/testify/assert"
)

func TestContextCarriesHint(t *testing.T) {
	tests := []struct {
		name   string
		ctx    context.Context
		want   prio.Hint
		wantOK bool
	}{
		{"no hint reads as normal", context.Background(), prio.Normal, false},
		{"a hint reads back", prio.WithHint(context.Background(), prio.Query), prio.Query, true},
		{"the innermost hint wins", prio.WithHint(prio.WithHint(context.Background(), prio.Query), prio.Background), prio.Background, true},
		{"an explicit normal is present", prio.WithHint(context.Background(), prio.Normal), prio.Normal, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, ok := prio.FromContext(tt.ctx)
			assert.Equal(t, tt.want, h)
			assert.Equal(t, tt.wantOK, ok)
		})
	}
}
