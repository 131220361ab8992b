package prio_test

import (
	"errors"
	"testing"

	"github.com/innosim/innosim/prio"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPlan(t *testing.T) {
	idle := prio.State{Class: prio.ClassIdle}
	tests := []struct {
		name     string
		policy   prio.Policy
		hint     prio.Hint
		cur      prio.State
		downward bool
		want     prio.Change
		wantOK   bool
	}{
		{"off never calls", prio.PolicyOff, prio.Query, prio.State{}, false, prio.Change{}, false},
		{"legacy sets QUERY_PRIOR", prio.PolicyLegacy, prio.Query, prio.State{}, false, prio.Change{Call: prio.CallSetparam, Priority: 6}, true},
		{"legacy sets WAIT_PRIOR", prio.PolicyLegacy, prio.Wait, prio.State{}, false, prio.Change{Call: prio.CallSetparam, Priority: 8}, true},
		{"legacy repeats a call already in force", prio.PolicyLegacy, prio.Wait, prio.State{Priority: 8}, false, prio.Change{Call: prio.CallSetparam, Priority: 8}, true},
		{"legacy has no priority for background", prio.PolicyLegacy, prio.Background, prio.State{}, false, prio.Change{}, false},
		{"nice raises priority for a query", prio.PolicyNice, prio.Query, prio.State{}, false, prio.Change{Call: prio.CallSetpriority, Nice: -5}, true},
		{"nice lowers priority for background", prio.PolicyNice, prio.Background, prio.State{}, false, prio.Change{Call: prio.CallSetpriority, Nice: 10}, true},
		{"nice skips a nice already in force", prio.PolicyNice, prio.Query, prio.State{Nice: -5}, false, prio.Change{}, false},
		{"nice downward skips a raise", prio.PolicyNice, prio.Query, prio.State{Nice: 10}, true, prio.Change{}, false},
		{"nice downward still lowers", prio.PolicyNice, prio.Low, prio.State{Nice: 10}, true, prio.Change{Call: prio.CallSetpriority, Nice: 19}, true},
		{"idle puts background into SCHED_IDLE", prio.PolicyIdle, prio.Background, prio.State{}, false, prio.Change{Call: prio.CallSetscheduler, Class: prio.ClassIdle}, true},
		{"idle skips a thread already idle", prio.PolicyIdle, prio.Idle, idle, false, prio.Change{}, false},
		{"idle returns a query to SCHED_OTHER", prio.PolicyIdle, prio.Query, idle, false, prio.Change{Call: prio.CallSetscheduler, Class: prio.ClassOther}, true},
		{"idle downward stays idle", prio.PolicyIdle, prio.Query, idle, true, prio.Change{}, false},
		{"idle leaves a normal thread alone", prio.PolicyIdle, prio.Query, prio.State{}, false, prio.Change{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.policy.Plan(tt.hint, tt.cur, tt.downward)
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestRestorePlan(t *testing.T) {
	tests := []struct {
		name      string
		cur, base prio.State
		want      []prio.Change
	}{
		{"nothing changed", prio.State{Nice: 3}, prio.State{Nice: 3}, nil},
		{"nice back", prio.State{Nice: -5}, prio.State{}, []prio.Change{{Call: prio.CallSetpriority, Nice: 0}}},
		{"class back", prio.State{Class: prio.ClassIdle}, prio.State{}, []prio.Change{{Call: prio.CallSetscheduler, Class: prio.ClassOther}}},
		{"class then nice", prio.State{Class: prio.ClassIdle, Nice: 10}, prio.State{Nice: 2},
			[]prio.Change{{Call: prio.CallSetscheduler, Class: prio.ClassOther}, {Call: prio.CallSetpriority, Nice: 2}}},
		{"priority back within the class", prio.State{Class: prio.ClassRR, Priority: 6}, prio.State{Class: prio.ClassRR, Priority: 1},
			[]prio.Change{{Call: prio.CallSetparam, Priority: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := prio.RestorePlan(tt.cur, tt.base)
			assert.Equal(t, tt.want, got)
			s := tt.cur
			for _, c := range got {
				s = c.Apply(s)
			}
			assert.Equal(t, tt.base, s, "applying the plan reaches the base")
		})
	}
}

func TestPolicyNames(t *testing.T) {
	for _, p := range []prio.Policy{prio.PolicyOff, prio.PolicyLegacy, prio.PolicyNice, prio.PolicyIdle} {
		got, err := prio.ParsePolicy(p.String())
		require.NoError(t, err)
		assert.Equal(t, p, got)
	}
	_, err := prio.ParsePolicy("realtime")
	assert.True(t, errors.Is(err, prio.ErrInvalidConfig))
	assert.Equal(t, "policy(9)", prio.Policy(9).String())
}

func TestNewRejectsAnUndefinedPolicy(t *testing.T) {
	_, err := prio.New(prio.Config{Policy: 9})
	require.Error(t, err)
	assert.True(t, errors.Is(err, prio.ErrInvalidConfig))
	assert.Contains(t, err.Error(), "Policy = 9, want 0..3")
}
