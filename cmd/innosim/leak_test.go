package main

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no command leaves a goroutine behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
