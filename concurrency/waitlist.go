package concurrency

// waitList is an intrusive FIFO of waiting threads, linked through Thread.next and
// Thread.prev, so queueing allocates nothing (the slots of srv_conc_slots without
// the fixed array). It is not safe for concurrent use: the policy guards it.
type waitList struct {
	head, tail *Thread
	n          int
}

func (l *waitList) pushBack(t *Thread) { l.insertAfter(l.tail, t) }

// pushFront puts t at the head: a woken waiter that lost its seat to a
// barging thread keeps its place.
func (l *waitList) pushFront(t *Thread) { l.insertAfter(nil, t) }

// insertBySince puts t before the first thread that began waiting after it:
// the lists stay ordered by Thread.since, so the head is the longest waiter. A
// thread that began waiting last (a newcomer) or first (a woken waiter that
// lost its seat, the usual re-queue) costs one or two comparisons; any other
// walks from the tail past the younger threads behind its place.
func (l *waitList) insertBySince(t *Thread) {
	if l.head != nil && t.since < l.head.since {
		l.pushFront(t)
		return
	}
	at := l.tail
	for at != nil && at.since > t.since {
		at = at.prev
	}
	l.insertAfter(at, t)
}

// insertAfter links t in after at, or at the head when at is nil.
func (l *waitList) insertAfter(at, t *Thread) {
	t.list = l
	t.prev = at
	if at == nil {
		t.next = l.head
		l.head = t
	} else {
		t.next = at.next
		at.next = t
	}
	if t.next != nil {
		t.next.prev = t
	} else {
		l.tail = t
	}
	l.n++
}

func (l *waitList) remove(t *Thread) {
	if t.prev != nil {
		t.prev.next = t.next
	} else {
		l.head = t.next
	}
	if t.next != nil {
		t.next.prev = t.prev
	} else {
		l.tail = t.prev
	}
	t.next, t.prev, t.list = nil, nil, nil
	l.n--
}

func (l *waitList) popFront() *Thread {
	t := l.head
	if t != nil {
		l.remove(t)
	}
	return t
}
