package machine

// switchCost is the ns of a switch to t: CostProfile.SwitchCost of the
// threads of t's set of cores, with the set's caches, when no thread there
// has a footprint of its own, else SwitchCostOf t's footprint (the
// profile's SwitchFootprint and t.foot) after all the set's other threads'
// footprints. A set's threads share its cores' caches and no others: a
// thread pinned to other cores evicts nothing there.
func (m *Machine) switchCost(t *thread) int64 {
	q := &m.sets[t.set]
	n := q.threads
	if n != q.csThreads || q.footSum != q.csFootSum {
		q.csThreads, q.csFootSum, q.csFoot = n, q.footSum, q.csFoot[:0]
		q.csCost = int64(q.costs.SwitchCost(n))
	}
	if q.footSum == 0 {
		return q.csCost
	}
	for _, f := range q.csFoot {
		if f.foot == t.foot {
			return f.cost
		}
	}
	w := q.costs.SwitchFootprint
	own := w + t.foot
	others := int64(n)*w + q.footSum - own
	c := int64(q.costs.SwitchCostOf(own, others))
	q.csFoot = append(q.csFoot, footCost{t.foot, c})
	return c
}

// footCost is a cached switch cost for threads of one own footprint.
type footCost struct{ foot, cost int64 }
