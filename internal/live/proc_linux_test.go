package live

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseStatCPUCountsFromTheLastParen(t *testing.T) {
	// a command name with a space and a ')' in it, utime 250 and stime 50 ticks
	stat := "1234 (my d) x) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 30 0 100 0 0"
	d, err := parseStatCPU(stat)
	require.NoError(t, err)
	assert.Equal(t, 3*time.Second, d)
	_, err = parseStatCPU("1234 (x) S 1 2")
	assert.Error(t, err, "a line cut short")
	_, err = parseStatCPU("no parens")
	assert.Error(t, err)
}

func TestProcessCPUReadsThisProcess(t *testing.T) {
	d, err := processCPU(os.Getpid())
	require.NoError(t, err)
	assert.GreaterOrEqual(t, d, time.Duration(0))
}
