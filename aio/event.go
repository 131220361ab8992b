package aio

import "github.com/innosim/innosim/internal/futex"

// event is what a handler sleeps on: set, reset with a signal count, wait for a
// set after the count (os_event_t). *futex.Event is one; chanEvent the other.
type event interface {
	Set()
	Reset() uint32
	Wait(count uint32)
}

var _ event = (*futex.Event)(nil)

// chanEvent is the portable event: a one-token channel. Set puts the token if
// it is not there; Reset takes it; Wait blocks for it. A Set between Reset and
// Wait leaves the token, so Wait returns at once and no wakeup is lost, which
// is what the signal count buys the futex event.
type chanEvent chan struct{}

func (e chanEvent) Set() {
	select {
	case e <- struct{}{}:
	default:
	}
}

func (e chanEvent) Reset() uint32 {
	select {
	case <-e:
	default:
	}
	return 0
}

func (e chanEvent) Wait(uint32) { <-e }
