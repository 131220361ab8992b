package prio_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/innosim/innosim/prio"
)

// FuzzConfig checks the configuration surface of prio against its documented
// ranges: New accepts exactly the four policies and refuses any other with an
// error wrapping ErrInvalidConfig that names the field; ParsePolicy accepts
// exactly the names String prints; WeightOfNice accepts exactly -20..19; and
// for any hint and thread state, Plan is pure (the same answer twice, no call
// under PolicyOff, no raising call with Downward) and RestorePlan leads back
// to the base. The seed corpus is in testdata/fuzz/FuzzConfig.
func FuzzConfig(f *testing.F) {
	f.Add(uint8(prio.PolicyNice), false, "nice", 0, int8(prio.Query), 0, 0, 0, 5, 0, 0)
	f.Add(uint8(9), true, "NICE", -21, int8(100), 5, 0, 19, 1, 50, -20)
	f.Add(uint8(prio.PolicyIdle), true, "idle", 19, int8(prio.Background), 0, 0, 0, 5, 0, 10)
	f.Fuzz(func(t *testing.T, policy uint8, downward bool, name string, nice int, hint int8,
		curClass, curPrio, curNice, baseClass, basePrio, baseNice int) {
		p := prio.Policy(policy)
		a, err := prio.New(prio.Config{Policy: p, Downward: downward, OS: nil})
		if valid := policy <= 3; valid != (err == nil) {
			t.Fatalf("New(Policy %d) = %v", policy, err)
		}
		if err != nil {
			if a != nil || !errors.Is(err, prio.ErrInvalidConfig) ||
				!strings.Contains(err.Error(), fmt.Sprintf("prio: Policy = %d, want 0..3", policy)) {
				t.Fatalf("New(Policy %d): %v, want ErrInvalidConfig naming Policy", policy, err)
			}
		} else if a.Policy() != p {
			t.Fatalf("Applier policy %v, want %v", a.Policy(), p)
		}

		parsed, err := prio.ParsePolicy(name)
		known := name == "off" || name == "legacy" || name == "nice" || name == "idle"
		if known != (err == nil) || (err != nil && !errors.Is(err, prio.ErrInvalidConfig)) {
			t.Fatalf("ParsePolicy(%q) = %v, %v", name, parsed, err)
		}
		if known && parsed.String() != name {
			t.Fatalf("ParsePolicy(%q).String() = %q", name, parsed.String())
		}

		w, err := prio.WeightOfNice(nice)
		if inRange := nice >= prio.MinNice && nice <= prio.MaxNice; inRange != (err == nil) ||
			(err != nil && !errors.Is(err, prio.ErrInvalidConfig)) || (inRange && w < 15) {
			t.Fatalf("WeightOfNice(%d) = %d, %v", nice, w, err)
		}

		h := prio.Hint(hint)
		if n := h.Nice(); n < prio.MinNice || n > prio.MaxNice {
			t.Fatalf("Hint(%d).Nice() = %d, outside -20..19", hint, n)
		}
		cur := prio.State{Class: prio.Class(curClass), Priority: curPrio, Nice: curNice}
		base := prio.State{Class: prio.Class(baseClass), Priority: basePrio, Nice: baseNice}
		if policy <= 3 {
			c1, ok1 := p.Plan(h, cur, downward)
			c2, ok2 := p.Plan(h, cur, downward)
			if c1 != c2 || ok1 != ok2 {
				t.Fatalf("Plan is not pure: %+v %v, then %+v %v", c1, ok1, c2, ok2)
			}
			if p == prio.PolicyOff && ok1 {
				t.Fatalf("PolicyOff planned %+v", c1)
			}
			if ok1 && downward && c1.Call == prio.CallSetpriority && c1.Nice < cur.Nice {
				t.Fatalf("Downward planned a raise from nice %d to %d", cur.Nice, c1.Nice)
			}
		}
		s := cur
		for _, c := range prio.RestorePlan(cur, base) {
			s = c.Apply(s)
		}
		if s != base {
			t.Fatalf("RestorePlan(%+v, %+v) leads to %+v", cur, base, s)
		}
		if cur == base && len(prio.RestorePlan(cur, base)) != 0 {
			t.Fatalf("RestorePlan of an unchanged thread makes calls")
		}
	})
}
