package study

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no test leaves a goroutine behind (RunCells starts some).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
