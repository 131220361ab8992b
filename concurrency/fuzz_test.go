package concurrency

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// FuzzConfig checks every constructor's validation against the documented
// ranges: New for each policy, the cores, NewAIMD and SetLimit accept exactly
// the values in range, and every refusal wraps ErrInvalidConfig and names the
// first field out of range; nothing panics. The seed corpus is in
// testdata/fuzz/FuzzConfig.
func FuzzConfig(f *testing.F) {
	d := DefaultConfig(8)
	f.Add(d.Limit, d.Tickets, int64(d.SleepDelay), int64(d.AdaptiveMaxSleepDelay), uint8(d.Priority), int64(d.Kickup),
		0, 0, 0, 0, 0.0, 0.0, 4)
	f.Add(1001, int64(-1), int64(-1), int64(2*time.Second), uint8(3), int64(-1), 5, 4, 9, -1, 1.0, 1.0, -1)
	f.Add(0, int64(MaxTickets), int64(time.Second), int64(time.Second), uint8(Auto), int64(MaxKickup),
		1, 1000, 1000, 1_000_000, 10.0, 0.5, 1000)
	f.Add(3, int64(0), int64(0), int64(0), uint8(0), int64(0), 0, 0, 0, 0, math.NaN(), math.Inf(1), 1001)
	f.Fuzz(func(t *testing.T, limit int, tickets, sleep, adaptive int64, priority uint8, kickup int64,
		aMin, aMax, aInitial, aWindow int, aTolerance, aBackoff float64, newLimit int) {
		cfg := Config{Limit: limit, Tickets: tickets, SleepDelay: time.Duration(sleep),
			AdaptiveMaxSleepDelay: time.Duration(adaptive), Priority: PriorityMode(priority), Kickup: time.Duration(kickup)}
		var bad string
		switch {
		case limit < 0 || limit > MaxLimit:
			bad = "Limit"
		case tickets < 0 || tickets > MaxTickets:
			bad = "Tickets"
		case sleep < 0 || sleep > int64(time.Second):
			bad = "SleepDelay"
		case adaptive < 0 || adaptive > int64(time.Second):
			bad = "AdaptiveMaxSleepDelay"
		case priority > uint8(Auto):
			bad = "Priority"
		case kickup < 0 || kickup > int64(MaxKickup):
			bad = "Kickup"
		}
		wantErr := func(what string, err error, field string) {
			t.Helper()
			if (err == nil) != (field == "") {
				t.Fatalf("%s(%+v) = %v, want an error naming %q", what, cfg, err, field)
			}
			if err != nil && (!errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), field+" = ")) {
				t.Fatalf("%s(%+v) = %v, want ErrInvalidConfig naming %s", what, cfg, err, field)
			}
		}
		for _, p := range Policies() {
			g, err := New(p, cfg)
			if p == PolicyUnlimited {
				if err != nil || g.Limit() != 0 {
					t.Fatalf("New(unlimited) = %v, limit %d", err, g.Limit())
				}
				continue
			}
			wantErr("New("+p.String()+")", err, bad)
			if err != nil {
				continue
			}
			lerr := g.SetLimit(newLimit)
			switch {
			case newLimit < 0 || newLimit > MaxLimit: // every policy, the fixed-limit ones too
				if !errors.Is(lerr, ErrInvalidConfig) || g.Limit() != limit && p != PolicyAdaptive {
					t.Fatalf("%v.SetLimit(%d) = %v, limit now %d", p, newLimit, lerr, g.Limit())
				}
			case p == PolicySemaphore || p == PolicyAdaptive:
				if lerr != nil && !errors.Is(lerr, errors.ErrUnsupported) {
					t.Fatalf("%v.SetLimit(%d) = %v", p, newLimit, lerr)
				}
			default:
				if lerr != nil || g.Limit() != newLimit {
					t.Fatalf("%v.SetLimit(%d) = %v, limit now %d", p, newLimit, lerr, g.Limit())
				}
			}
		}
		_, err := NewQueueCore(cfg)
		wantErr("NewQueueCore", err, bad)
		_, err = NewAtomicCore(cfg)
		wantErr("NewAtomicCore", err, bad)
		_, err = NewHandoffCore(cfg)
		wantErr("NewHandoffCore", err, bad)

		ac := AIMDConfig{Min: aMin, Max: aMax, Initial: aInitial, Window: aWindow, Tolerance: aTolerance, Backoff: aBackoff}
		mn, mx := aMin, aMax
		if mn == 0 {
			mn = 1
		}
		if mx == 0 {
			mx = MaxLimit
		}
		in := aInitial
		if in == 0 {
			in = mn
		}
		tol, back := aTolerance, aBackoff
		if tol == 0 {
			tol = 1.5
		}
		if back == 0 {
			back = 0.9
		}
		var abad string
		switch {
		case mn < 1 || mn > MaxLimit:
			abad = "AIMD Min"
		case mx < mn || mx > MaxLimit:
			abad = "AIMD Max"
		case in < mn || in > mx:
			abad = "AIMD Initial"
		case aWindow < 0 || aWindow > 1_000_000:
			abad = "AIMD Window"
		case !(tol > 1 && tol <= 10):
			abad = "AIMD Tolerance"
		case !(back > 0 && back < 1):
			abad = "AIMD Backoff"
		}
		ctl, err := NewAIMD(ac)
		if (err == nil) != (abad == "") ||
			(err != nil && (!errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), abad+" = "))) {
			t.Fatalf("NewAIMD(%+v) = %v, want an error naming %q", ac, err, abad)
		}
		if err == nil {
			if ctl.Limit() != in {
				t.Fatalf("AIMD starts at %d, want %d", ctl.Limit(), in)
			}
			for range 3 { // whatever it observes, the limit stays in Min..Max
				if l, _ := ctl.ObserveWindow(time.Duration(sleep)); l < mn || l > mx {
					t.Fatalf("AIMD limit %d outside %d..%d", l, mn, mx)
				}
			}
		}
	})
}
