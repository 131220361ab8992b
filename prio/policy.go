package prio

import "fmt"

// Policy decides whether, and through which system call, a hint reaches the OS
// scheduler. The zero value is PolicyOff.
type Policy uint8

// Policies. Their String names are off, legacy, nice and idle.
const (
	// PolicyOff never touches the OS: hints only travel in contexts and order queues. What
	// MySQL has done since 5.1.29 (--skip-thread-priority became the only behaviour).
	PolicyOff Policy = iota
	// PolicyLegacy is MySQL 5.1's: every query sets a pthread scheduling priority on entry
	// (QUERY_PRIOR) and another on exit (WAIT_PRIOR) — two system calls per query —
	// through sched_setparam with the values of Hint.LegacyPriority. On Linux
	// SCHED_OTHER accepts only priority 0, so each call fails with EINVAL and changes
	// nothing; the error is reported, faithfully.
	PolicyLegacy
	// PolicyNice sets the thread's nice value to Hint.Nice with setpriority(PRIO_PROCESS,
	// tid), which on Linux is per thread. Lowering nice (raising priority) needs
	// CAP_SYS_NICE or an RLIMIT_NICE allowance; without them the call fails with
	// EACCES and the thread keeps the nice it had.
	PolicyNice
	// PolicyIdle puts threads at Background and below into SCHED_IDLE (RocksDB's kIdle, its
	// lowest CPU priority) and returns more urgent hints to SCHED_OTHER; nice values
	// are left alone.
	PolicyIdle
)

var policyNames = [...]string{"off", "legacy", "nice", "idle"}

// String returns the policy's lower-case name ("off", "legacy", "nice", "idle"), or
// "policy(N)" for an undefined value.
func (p Policy) String() string {
	if int(p) < len(policyNames) {
		return policyNames[p]
	}
	return fmt.Sprintf("policy(%d)", uint8(p))
}

// ParsePolicy returns the policy named s (as String prints it). An unknown name is
// an error wrapping ErrInvalidConfig.
func ParsePolicy(s string) (Policy, error) {
	for i, n := range policyNames {
		if n == s {
			return Policy(i), nil
		}
	}
	return PolicyOff, fmt.Errorf("prio: policy %q, want off, legacy, nice or idle: %w", s, ErrInvalidConfig)
}

func (p Policy) valid() bool { return int(p) < len(policyNames) }
