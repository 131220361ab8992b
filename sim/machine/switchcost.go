package machine

// switchCost is the ns of a switch to t: CostProfile.SwitchCost of the
// machine's threads when no thread has a footprint of its own, else
// SwitchCostOf t's footprint (the profile's SwitchFootprint and t.foot)
// after all the other threads' footprints.
func (m *Machine) switchCost(t *thread) int64 {
	n := len(m.threads)
	if n != m.csThreads || m.footSum != m.csFootSum {
		m.csThreads, m.csFootSum, m.csFoot = n, m.footSum, m.csFoot[:0]
		m.csCost = int64(m.cfg.Costs.SwitchCost(n))
	}
	if m.footSum == 0 {
		return m.csCost
	}
	for _, f := range m.csFoot {
		if f.foot == t.foot {
			return f.cost
		}
	}
	w := m.cfg.Costs.SwitchFootprint
	own := w + t.foot
	others := int64(n)*w + m.footSum - own
	c := int64(m.cfg.Costs.SwitchCostOf(own, others))
	m.csFoot = append(m.csFoot, footCost{t.foot, c})
	return c
}
