package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/sim"
)

// A workload's description (sim.Workload.Doc) was printed nowhere: a user
// choosing between oltp_read_only and oltp_read_only_mariadb had the names
// only.
func TestWorkloadsPrintsEachWorkloadsUnitAndDoc(t *testing.T) {
	code, stdout, stderr := runCmd("workloads")
	require.Equal(t, 0, code, stderr)
	for _, n := range sim.WorkloadNames() {
		w, _ := sim.LookupWorkload(n)
		assert.Contains(t, stdout, n+" ("+w.Unit+")\n")
	}
	assert.Contains(t, stdout, "against MariaDB 10.11")
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		assert.LessOrEqual(t, len([]rune(line)), 100, "%q", line)
	}
	code, stdout, _ = runCmd("workloads", "connect")
	require.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(stdout, "connect (connections/s)\n"))
	assert.NotContains(t, stdout, "oltp_")
	code, _, stderr = runCmd("workloads", "tpcc")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `workload "tpcc": want one of bulk_insert`)
}
