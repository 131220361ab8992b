package machine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A read view with Arg lines reads every other active transaction's lines
// from the socket it began on: LineTransfer on the reader's socket,
// LineTransferRemote across, nothing for its own; Dur is per transaction.
func TestReadViewCostByOwnersSocket(t *testing.T) {
	p := OldKernel()
	m, err := New(Config{CPUs: 4, Sockets: 2, Costs: p})
	require.NoError(t, err)
	a := &thread{core: 0} // socket 0
	b := &thread{core: 1} // socket 0
	c := &thread{core: 2} // socket 1
	d := &thread{core: 3} // socket 1
	r := &thread{core: 1} // the reader, socket 0, in a transaction of its own
	for _, th := range []*thread{a, b, c, d, r} {
		m.trxBegin(th)
	}
	require.Equal(t, 5, m.activeTrx)
	lt, rt := int64(p.LineTransfer), int64(p.LineTransferRemote)
	assert.Equal(t, 2*lt+2*rt, m.readViewCost(r, &Op{Kind: OpReadView, Arg: 1}), "a and b local, c and d remote, its own free")
	assert.Equal(t, 2*(2*lt+2*rt), m.readViewCost(r, &Op{Kind: OpReadView, Arg: 2}))
	assert.Equal(t, int64(5*250), m.readViewCost(r, &Op{Kind: OpReadView, Dur: 250}), "Dur alone: per active transaction, as before")

	m.trxEnd(c)
	m.trxEnd(d)
	m.trxEnd(d) // a second end of the same transaction moves no socket's count
	assert.Equal(t, 2*lt, m.readViewCost(r, &Op{Kind: OpReadView, Arg: 1}))
	m.trxEnd(a)
	m.trxEnd(b)
	m.trxEnd(r)
	assert.Equal(t, []int32{0, 0, 0}, m.trxOn, "the counts balance")
	assert.Zero(t, m.readViewCost(r, &Op{Kind: OpReadView, Arg: 1}), "alone: nothing to walk")
}
