package benchcmp

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds arbitrary text to Parse. Whatever it accepts must be a
// well-formed File: at least one result, every unit of a benchmark with one finite
// value per result line, and a comparison of the file with itself that finds the
// same environment and no change (or too few samples to tell).
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "*.txt"))
	for _, name := range seeds {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"",
		"BenchmarkA 1 5 ns/op\n",
		"BenchmarkA 1 5 ns/op 3 B/op 1 allocs/op\nBenchmarkA 1 6 ns/op 3 B/op 1 allocs/op\n",
		"kernel: 6.1\nBenchmarkA-2 10 5 ns/op\nkernel: 6.2\nBenchmarkA-2 10 5 ns/op\n",
		"Unit ns/op assume=exact\nBenchmarkA 1 5 ns/op\n",
		"BenchmarkA\nBenchmarkA 1 5 ns/op",
		"BenchmarkA 1 1e309 ns/op\n",
		"pkg: x\nBenchmarkA/sub=1-8 1 -5 ns/op\n",
		"BenchmarkA 1 0 ns/op\nBenchmarkA 1 5 ns/op\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse(bytes.NewReader(data), "fuzz.txt")
		if err != nil {
			return
		}
		if file.Results() == 0 || len(file.Benchmarks) == 0 {
			t.Fatalf("accepted a file with no results")
		}
		for _, s := range file.Benchmarks {
			n := len(s.Value[s.Units[0]])
			for _, u := range s.Units {
				if len(s.Value[u]) != n {
					t.Fatalf("%s: %d values of %s, %d of %s", s.Key, len(s.Value[u]), u, n, s.Units[0])
				}
				for _, v := range s.Value[u] {
					if math.IsNaN(v) || math.IsInf(v, 0) {
						t.Fatalf("%s: accepted non-finite %v %s", s.Key, v, u)
					}
				}
			}
		}
		r, err := Compare(file, file)
		if err != nil {
			t.Fatalf("comparing a file with itself: %v", err)
		}
		if len(r.EnvDiffs) != 0 {
			t.Fatalf("a file differs from itself in %v", r.EnvDiffs)
		}
		for _, c := range r.Changes {
			if c.Verdict == TooFewSamples && c.OldN < MinSamples {
				continue
			}
			if c.Verdict != NoChange {
				t.Fatalf("%s %s: a file compared with itself gives %q", c.Key, c.Unit, c.Verdict)
			}
		}
		var out bytes.Buffer
		if _, err := r.WriteTo(&out); err != nil {
			t.Fatal(err)
		}
	})
}
