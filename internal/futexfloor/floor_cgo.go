//go:build linux && cgo

package futexfloor

/*
#cgo CFLAGS: -O2 -pthread
#cgo LDFLAGS: -pthread
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

// ff_event: the event of internal/futex without its signal count. word is 1
// while set; waiters counts threads inside ff_wait; calls counts the FUTEX_WAIT
// and FUTEX_WAKE calls made on it.
typedef struct {
	unsigned int word;
	int waiters;
	unsigned long calls;
} ff_event;

// ff_wait returns once e is set, and leaves it reset.
static void ff_wait(ff_event *e) {
	for (;;) {
		unsigned int set = 1;
		if (__atomic_compare_exchange_n(&e->word, &set, 0, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
			return;
		}
		__atomic_add_fetch(&e->waiters, 1, __ATOMIC_SEQ_CST);
		// Sleep only while the word still reads reset: a set after the
		// waiter count went up either shows here or makes the setter wake us.
		if (__atomic_load_n(&e->word, __ATOMIC_SEQ_CST) == 0) {
			syscall(SYS_futex, &e->word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
			__atomic_add_fetch(&e->calls, 1, __ATOMIC_RELAXED);
		}
		__atomic_sub_fetch(&e->waiters, 1, __ATOMIC_SEQ_CST);
	}
}

// ff_set sets e and wakes its waiter if there is one.
static void ff_set(ff_event *e) {
	__atomic_store_n(&e->word, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&e->waiters, __ATOMIC_SEQ_CST) > 0) {
		syscall(SYS_futex, &e->word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		__atomic_add_fetch(&e->calls, 1, __ATOMIC_RELAXED);
	}
}

struct ff_pool;

// One handler thread and what only it reads: its event, one request flag per
// submitter, its count of served requests. A cache line of its own.
typedef struct {
	ff_event ev;
	int req[64];
	unsigned long served;
	int stop;
	int idx;
	struct ff_pool *pool;
	pthread_t thread;
} __attribute__((aligned(64))) ff_handler;

typedef struct {
	ff_event ev;
	long n;
	int idx;
	struct ff_pool *pool;
	pthread_t thread;
} __attribute__((aligned(64))) ff_submitter;

typedef struct ff_pool {
	int submitters, handlers;
	ff_handler *h;
	ff_submitter *s;
} ff_pool;

typedef struct {
	long long ns;
	unsigned long completed, hcalls, scalls;
} ff_result;

static void *ff_handle(void *arg) {
	ff_handler *h = arg;
	ff_pool *p = h->pool;
	for (;;) {
		ff_wait(&h->ev);
		for (int j = 0; j < p->submitters; j++) {
			if (__atomic_exchange_n(&h->req[j], 0, __ATOMIC_SEQ_CST)) {
				__atomic_add_fetch(&h->served, 1, __ATOMIC_RELAXED);
				ff_set(&p->s[j].ev);
			}
		}
		if (__atomic_load_n(&h->stop, __ATOMIC_SEQ_CST)) {
			return NULL;
		}
	}
}

static void *ff_submit(void *arg) {
	ff_submitter *s = arg;
	ff_pool *p = s->pool;
	for (long i = 0; i < s->n; i++) {
		ff_handler *h = &p->h[(s->idx + (long)p->submitters * i) % p->handlers];
		__atomic_store_n(&h->req[s->idx], 1, __ATOMIC_SEQ_CST);
		ff_set(&h->ev);
		ff_wait(&s->ev);
	}
	return NULL;
}

static void ff_free(ff_pool *p) {
	free(p->h);
	free(p->s);
	free(p);
}

// ff_stop stops and joins the first n handler threads of p.
static void ff_stop(ff_pool *p, int n) {
	for (int k = 0; k < n; k++) {
		__atomic_store_n(&p->h[k].stop, 1, __ATOMIC_SEQ_CST);
		ff_set(&p->h[k].ev);
	}
	for (int k = 0; k < n; k++) {
		pthread_join(p->h[k].thread, NULL);
	}
}

// ff_start starts the handler threads; on failure it returns NULL with *rc
// the error number, and has started nothing.
static ff_pool *ff_start(int submitters, int handlers, int *rc) {
	ff_pool *p = calloc(1, sizeof *p);
	void *h = NULL, *s = NULL;
	if (p == NULL ||
	    posix_memalign(&h, 64, sizeof(ff_handler) * handlers) != 0 ||
	    posix_memalign(&s, 64, sizeof(ff_submitter) * submitters) != 0) {
		free(p);
		free(h);
		free(s);
		*rc = ENOMEM;
		return NULL;
	}
	memset(h, 0, sizeof(ff_handler) * handlers);
	memset(s, 0, sizeof(ff_submitter) * submitters);
	p->submitters = submitters;
	p->handlers = handlers;
	p->h = h;
	p->s = s;
	for (int j = 0; j < submitters; j++) {
		p->s[j].idx = j;
		p->s[j].pool = p;
	}
	for (int k = 0; k < handlers; k++) {
		p->h[k].idx = k;
		p->h[k].pool = p;
		int err = pthread_create(&p->h[k].thread, NULL, ff_handle, &p->h[k]);
		if (err != 0) {
			ff_stop(p, k);
			ff_free(p);
			*rc = err;
			return NULL;
		}
		pthread_setname_np(p->h[k].thread, "ff-handler"); // tests count them
	}
	return p;
}

static unsigned long ff_sum_served(ff_pool *p) {
	unsigned long n = 0;
	for (int k = 0; k < p->handlers; k++) n += __atomic_load_n(&p->h[k].served, __ATOMIC_SEQ_CST);
	return n;
}

static unsigned long ff_sum_hcalls(ff_pool *p) {
	unsigned long n = 0;
	for (int k = 0; k < p->handlers; k++) n += __atomic_load_n(&p->h[k].ev.calls, __ATOMIC_SEQ_CST);
	return n;
}

static unsigned long ff_sum_scalls(ff_pool *p) {
	unsigned long n = 0;
	for (int j = 0; j < p->submitters; j++) n += __atomic_load_n(&p->s[j].ev.calls, __ATOMIC_SEQ_CST);
	return n;
}

// ff_run runs ops requests split over the submitter threads and returns 0, or
// an error number if a thread could not start (the ones that did have ended).
static int ff_run(ff_pool *p, long ops, ff_result *r) {
	unsigned long served = ff_sum_served(p), hcalls = ff_sum_hcalls(p), scalls = ff_sum_scalls(p);
	struct timespec t0, t1;
	int rc = 0, started = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int j = 0; j < p->submitters; j++) {
		p->s[j].n = ops / p->submitters + (j < ops % p->submitters ? 1 : 0);
		rc = pthread_create(&p->s[j].thread, NULL, ff_submit, &p->s[j]);
		if (rc != 0) break;
		started++;
	}
	for (int j = 0; j < started; j++) pthread_join(p->s[j].thread, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r->ns = (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec);
	r->completed = ff_sum_served(p) - served;
	r->hcalls = ff_sum_hcalls(p) - hcalls;
	r->scalls = ff_sum_scalls(p) - scalls;
	return rc;
}

static void ff_close(ff_pool *p) {
	ff_stop(p, p->handlers);
	ff_free(p);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"syscall"
	"time"
)

// Supported reports whether this build can run the floor: Linux with cgo.
func Supported() bool { return true }

// Pool is handlers C threads, each asleep on its own futex word until a
// request arrives, for submitters submitter threads that Run starts. A Pool is
// not safe for concurrent use, and Close must be called to end its threads.
type Pool struct {
	p *C.ff_pool
}

// Start starts handlers handler threads (1..MaxHandlers) for submitters
// submitters (1..MaxSubmitters). Out-of-range arguments give an error wrapping
// ErrInvalidConfig; a thread that cannot start gives its errno, and nothing is
// left running.
func Start(submitters, handlers int) (*Pool, error) {
	if err := checkStart(submitters, handlers); err != nil {
		return nil, err
	}
	var rc C.int
	p := C.ff_start(C.int(submitters), C.int(handlers), &rc)
	if p == nil {
		return nil, fmt.Errorf("futexfloor: start %d handler threads: %w", handlers, syscall.Errno(rc))
	}
	return &Pool{p: p}, nil
}

// Run has the submitter threads hand ops requests (0 or more) to the handlers,
// one at a time each, submitter j's i-th to handler (j + submitters×i) mod
// handlers, and returns when every one is served. It fails on a closed Pool,
// on a negative ops, and if a submitter thread cannot start.
func (p *Pool) Run(ops int) (Result, error) {
	if p.p == nil {
		return Result{}, errors.New("futexfloor: run on a closed pool")
	}
	if err := checkOps(ops); err != nil {
		return Result{}, err
	}
	var r C.ff_result
	if rc := C.ff_run(p.p, C.long(ops), &r); rc != 0 {
		return Result{}, fmt.Errorf("futexfloor: start a submitter thread: %w", syscall.Errno(rc))
	}
	return Result{
		Elapsed:             time.Duration(r.ns),
		Completed:           uint64(r.completed),
		HandlerFutexCalls:   uint64(r.hcalls),
		SubmitterFutexCalls: uint64(r.scalls),
	}, nil
}

// Close stops and joins the handler threads. Closing twice does nothing.
func (p *Pool) Close() error {
	if p.p != nil {
		C.ff_close(p.p)
		p.p = nil
	}
	return nil
}
