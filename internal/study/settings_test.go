package study

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/sim"
)

func TestStudySettingsParse(t *testing.T) {
	a, err := studySettings("study_a_my.cnf")
	require.NoError(t, err)
	assert.Equal(t, 0, a.ThreadConcurrency, "study A runs without the gate")
	d, err := studySettings("study_d_my.cnf")
	require.NoError(t, err)
	assert.Equal(t, 16, d.ReadIOThreads)
	assert.Equal(t, 16, d.WriteIOThreads)
	c, err := sim.CellFromSettings(d, "oltp_insert")
	require.NoError(t, err)
	require.NotNil(t, c.AIO)
	assert.Equal(t, 16, c.AIO.ReadSegments)
	assert.Nil(t, c.Gate, "innodb_thread_concurrency=0: no gate")
}
