package concurrency

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestWaitListInsertBySinceKeepsWaitingOrder: inserting threads in any order
// of their waiting times leaves the list ordered by them, equal times in
// insertion order.
func TestWaitListInsertBySinceKeepsWaitingOrder(t *testing.T) {
	var l waitList
	order := []time.Duration{5, 3, 9, 3, 1, 7, 9, 0}
	threads := make([]*Thread, len(order))
	for i, s := range order {
		threads[i] = &Thread{since: s}
		l.insertBySince(threads[i])
	}
	var got []time.Duration
	var prev *Thread
	for w := l.head; w != nil; w = w.next {
		assert.Equal(t, prev, w.prev)
		got = append(got, w.since)
		prev = w
	}
	assert.Equal(t, prev, l.tail)
	assert.Equal(t, []time.Duration{0, 1, 3, 3, 5, 7, 9, 9}, got)
	assert.Equal(t, len(order), l.n)
	// equal times keep insertion order: threads[1] before threads[3], [2] before [6]
	assert.Equal(t, threads[1], l.head.next.next)
	assert.Equal(t, threads[6], l.tail)
}
