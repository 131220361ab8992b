// Package aiobench holds the body of the root package's BenchmarkAIOWake
// (bench_aio_test.go) in a non-test package, so that the benchmark and
// `innosim calibrate --check` (which runs it through testing.Benchmark) run the
// same code: a prediction is held against exactly what the benchmark measures.
//
// One op is one request: Submitters goroutines each submit one 16 KiB read at a
// time to an aio.Array with the Latency backend at zero service time and wait for
// its completion, so an op costs the wake path alone. Submitter j's i-th request
// lands in read segment (j + Submitters×i) mod handlers, at a page two apart from
// any other submitter's, so nothing merges. In futex mode every handler is a
// locked OS thread sleeping on a futex.Event and every submitter waits on its own
// futex.Event on a locked OS thread, as an InnoDB query thread waits for its
// read; in goroutine mode both wait on channels.
package aiobench
