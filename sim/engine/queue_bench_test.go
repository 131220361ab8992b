package engine

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// BenchmarkQueue holds the calendar queue against the 4-ary heap the engine
// used before it (farHeap, keyed by time and sequence number), operation for
// operation, on the hold model at three sizes and on two recorded runs of the
// simulator. An operation is scheduling an event or taking the next one; the
// hold model's is one of each.
//
// The recordings (testdata/*.ops.gz) are the first 250,000 operations of
// innosim run -workload oltp_read_only -threads 64 -cpus 16 -sched ts, and of
// -threads 1024 -cpus 16 (CFS, 400 ms of warm-up): each a gzip of uvarints, 0
// for taking the next event and d+1 for scheduling one d ns from now.
func BenchmarkQueue(b *testing.B) {
	for _, pending := range []int{16, 256, 4096} {
		name := "model=hold/pending=" + strconv.Itoa(pending)
		b.Run(name+"/queue=heap", func(b *testing.B) { holdHeap(b, pending) })
		b.Run(name+"/queue=calendar", func(b *testing.B) { holdCalendar(b, pending) })
	}
	for _, trace := range []string{"oltp_read_only_t64_cpu16_ts", "oltp_read_only_t1024_cpu16_cfs"} {
		ops, err := readOps(filepath.Join("testdata", trace+".ops.gz"))
		if err != nil {
			b.Fatal(err)
		}
		b.Run("model="+trace+"/queue=heap", func(b *testing.B) { replayHeap(b, ops) })
		b.Run("model="+trace+"/queue=calendar", func(b *testing.B) { replayCalendar(b, ops) })
	}
}

// readOps reads a recording: -1 for taking the next event, d ≥ 0 for
// scheduling one d ns from now.
func readOps(path string) ([]int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	r := bufio.NewReader(zr)
	var ops []int64
	for {
		v, err := binary.ReadUvarint(r)
		if errors.Is(err, io.EOF) {
			return ops, nil
		}
		if err != nil {
			return nil, err
		}
		ops = append(ops, int64(v)-1)
	}
}

func holdHeap(b *testing.B, pending int) {
	e := New(1)
	r := e.Rand()
	var h farHeap
	var seq uint64
	for range pending {
		seq++
		h.push(farEntry{at: r.Int64N(10000), seq: seq})
	}
	b.ReportAllocs()
	for b.Loop() {
		at := h.pop().at
		seq++
		h.push(farEntry{at: at + 1 + r.Int64N(10000), seq: seq})
	}
}

func holdCalendar(b *testing.B, pending int) {
	e := New(1)
	r := e.Rand()
	q := newCalendar()
	for range pending {
		q.push(r.Int64N(10000), 0, 0, 0)
	}
	b.ReportAllocs()
	for b.Loop() {
		at := q.take(1<<63 - 1).at
		q.push(at+1+r.Int64N(10000), 0, 0, 0)
	}
}

func replayHeap(b *testing.B, ops []int64) {
	var h farHeap
	var seq uint64
	var now int64
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		if i == len(ops) {
			i, now, h = 0, 0, h[:0]
		}
		switch d := ops[i]; {
		case d >= 0:
			seq++
			h.push(farEntry{at: now + d, seq: seq})
		case len(h) > 0:
			now = h.pop().at
		}
		i++
	}
}

func replayCalendar(b *testing.B, ops []int64) {
	q := newCalendar()
	var now int64
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		if i == len(ops) {
			for q.n > 0 {
				q.take(1<<63 - 1)
			}
			i, now = 0, 0
		}
		switch d := ops[i]; {
		case d >= 0:
			q.push(now+d, 0, 0, 0)
		case q.n > 0:
			now = q.take(1<<63 - 1).at
		}
		i++
	}
}
