package concurrency

// waitList is an intrusive FIFO of waiting threads, linked through Thread.next and
// Thread.prev, so queueing allocates nothing (the slots of srv_conc_slots without
// the fixed array). It is not safe for concurrent use: the policy guards it.
type waitList struct {
	head, tail *Thread
	n          int
}

func (l *waitList) pushBack(t *Thread) {
	t.list = l
	t.next = nil
	t.prev = l.tail
	if l.tail != nil {
		l.tail.next = t
	} else {
		l.head = t
	}
	l.tail = t
	l.n++
}

// pushFront puts t at the head: a woken waiter that lost its seat to a
// barging thread keeps its place.
func (l *waitList) pushFront(t *Thread) {
	t.list = l
	t.prev = nil
	t.next = l.head
	if l.head != nil {
		l.head.prev = t
	} else {
		l.tail = t
	}
	l.head = t
	l.n++
}

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
	if at == nil {
		l.pushFront(t)
		return
	}
	t.list = l
	t.prev = at
	t.next = at.next
	if at.next != nil {
		at.next.prev = t
	} else {
		l.tail = t
	}
	at.next = t
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
