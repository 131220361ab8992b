package concurrency

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The admission count lives partly in the state word's top field and partly in
// entersHigh. A Stats snapshot taken while one enter has wrapped the field but
// not yet carried it must still count every admission: it used to come out
// enterWrap (65536) short.
func TestHandoffStatsExactAcrossAdmissionCountWrap(t *testing.T) {
	c, err := NewHandoffCore(Config{Limit: 1, Tickets: 1})
	require.NoError(t, err)
	var th Thread
	for i := 0; i < enterWrap-1; i++ {
		require.Equal(t, Admitted, c.Enter(&th, 0).Verdict)
		require.Equal(t, Freed, c.ForceExit(&th, 0).Outcome)
	}
	require.Equal(t, uint64(enterWrap-1), c.Stats().Enters)

	got := make(chan uint64, 1)
	c.afterWrap = func() {
		// Another thread asks for a snapshot while the wrap is being carried.
		go func() { got <- c.Stats().Enters }()
		time.Sleep(5 * time.Millisecond)
	}
	require.Equal(t, Admitted, c.Enter(&th, 0).Verdict)
	require.Equal(t, uint64(enterWrap), <-got, "snapshot during the carry")
	require.Equal(t, uint64(enterWrap), c.Stats().Enters)
	st := c.Stats()
	require.Equal(t, st.Enters+st.ForceEnters, st.Exits+uint64(st.Inside))
}
