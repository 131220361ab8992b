package machine

// trxBegin counts t's transaction active (trx_start_low's
// UT_LIST_ADD_FIRST onto trx_sys->trx_list) and notes the socket it began
// on: the socket whose cache holds the transaction's lines that the owner
// writes (its id, state and serialisation number).
func (m *Machine) trxBegin(t *thread) {
	m.activeTrx++
	if t.trxAt > 0 {
		m.trxOn[t.trxAt-1]--
	}
	s := 0
	if t.core >= 0 {
		s = m.socket(t.core)
	}
	m.trxOn[s]++
	t.trxAt = int32(s) + 1
}

// trxEnd counts t's transaction committed (trx_commit_off_kernel's
// UT_LIST_REMOVE from trx_sys->trx_list).
func (m *Machine) trxEnd(t *thread) {
	m.activeTrx--
	if t.trxAt > 0 {
		m.trxOn[t.trxAt-1]--
		t.trxAt = 0
	}
}

// readViewCost is the ns of op (OpReadView) for t: op.Dur per active
// transaction, and when op.Arg > 0, op.Arg cache lines read from each
// active transaction other than t's own, each moved from the socket the
// transaction began on to t's core (transfer's price: LineTransfer within
// t's socket, LineTransferRemote across). A walk of a linked list is a
// chain of dependent loads, so the lines do not overlap: InnoDB 5.5's
// read_view_open_now (read0read.c) follows trx_sys->trx_list reading each
// transaction's id, conc_state and no, which its owner wrote.
func (m *Machine) readViewCost(t *thread, op *Op) int64 {
	ns := int64(m.activeTrx) * int64(op.Dur)
	if op.Arg <= 0 {
		return ns
	}
	mine := 0
	if t.core >= 0 {
		mine = m.socket(t.core)
	}
	c := m.cfg.Costs
	for s, n := range m.trxOn {
		k := int64(n)
		if int32(s)+1 == t.trxAt {
			k-- // its own transaction: in its own cache
		}
		if k <= 0 {
			continue
		}
		if s == mine {
			ns += k * int64(op.Arg) * int64(c.LineTransfer)
		} else {
			ns += k * int64(op.Arg) * int64(c.LineTransferRemote)
		}
	}
	return ns
}
