package contention

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"github.com/innosim/innosim/internal/cmdflag"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// stack is n samples with the given frames, leaf first.
type stack struct {
	n      int64
	frames []string
}

// synthetic builds a CPU profile whose samples have the given stacks (leaf first)
// and counts.
func synthetic(stacks []stack) *profile.Profile {
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:     10_000_000,
	}
	funcs := map[string]*profile.Function{}
	fn := func(name string) *profile.Function {
		if f, ok := funcs[name]; ok {
			return f
		}
		f := &profile.Function{ID: uint64(len(funcs) + 1), Name: name}
		funcs[name] = f
		p.Function = append(p.Function, f)
		return f
	}
	for _, st := range stacks {
		s := &profile.Sample{Value: []int64{st.n, st.n * 10_000_000}}
		for _, frame := range st.frames {
			// A location may hold several lines: "a|b" is a inlined into b.
			loc := &profile.Location{ID: uint64(len(p.Location) + 1)}
			for _, name := range splitInline(frame) {
				loc.Line = append(loc.Line, profile.Line{Function: fn(name)})
			}
			p.Location = append(p.Location, loc)
			s.Location = append(s.Location, loc)
		}
		p.Sample = append(p.Sample, s)
	}
	return p
}

func splitInline(frame string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(frame); i++ {
		if i == len(frame) || frame[i] == '|' {
			out = append(out, frame[start:i])
			start = i + 1
		}
	}
	return out
}

func TestShareOf(t *testing.T) {
	tests := []struct {
		name   string
		stacks []stack
		want   Share
	}{
		{"empty profile", nil, Share{}},
		{"no lock code", []stack{{3, []string{"main.work", "main.main"}}}, Share{Samples: 3}},
		{"runtime.futex at the leaf", []stack{
			{1, []string{"runtime.futex", "runtime.futexsleep", "runtime.notesleep"}},
			{3, []string{"main.work", "main.main"}},
		}, Share{Samples: 4, Contended: 1}},
		{"mutex slow path deep in the stack counts once", []stack{
			{2, []string{"runtime.procyield", "internal/sync.(*Mutex).lockSlow", "sync.(*Mutex).Lock", "main.f"}},
			{2, []string{"main.work"}},
		}, Share{Samples: 4, Contended: 2}},
		{"our futex event, inlined", []stack{
			{5, []string{"golang.org/x/sys/unix.Syscall6", "github.com/innosim/innosim/internal/futex.futexWake|github.com/innosim/innosim/internal/futex.(*Event).Set", "main.f"}},
			{5, []string{"golang.org/x/sys/unix.Syscall6", "syscall.read"}},
		}, Share{Samples: 10, Contended: 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ShareOf(synthetic(tt.stacks), nil)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestShareOfWithoutSampleTypesIsAnError(t *testing.T) {
	_, err := ShareOf(&profile.Profile{}, nil)
	require.ErrorIs(t, err, ErrNoSamples)
}

func TestSharePercent(t *testing.T) {
	require.Equal(t, 0.0, Share{}.Percent())
	require.InDelta(t, 25.0, Share{Samples: 8, Contended: 2}.Percent(), 1e-9)
	require.Equal(t, "25.0% of 8 samples", Share{Samples: 8, Contended: 2}.String())
}

func TestTopRanksByCumulativeShare(t *testing.T) {
	p := synthetic([]stack{
		{6, []string{"runtime.futex", "runtime.futexwakeup", "runtime.unlock2", "main.f"}},
		{2, []string{"runtime.lock2", "main.g"}},
		// A recursive stack must not count a function twice.
		{1, []string{"runtime.lock2", "runtime.lock2", "main.h"}},
		{11, []string{"main.work"}},
	})
	got, err := Top(p, nil, 3)
	require.NoError(t, err)
	require.Equal(t, []FrameShare{
		{Function: "runtime.futex", Cum: 30, Flat: 30},
		{Function: "runtime.futexwakeup", Cum: 30, Flat: 0},
		{Function: "runtime.unlock2", Cum: 30, Flat: 0},
	}, got)
	all, err := Top(p, nil, 0)
	require.NoError(t, err)
	require.Len(t, all, 4)
	require.Equal(t, FrameShare{Function: "runtime.lock2", Cum: 15, Flat: 15}, all[3])
}

func TestFramesAreDocumented(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range Frames() {
		require.NotEmpty(t, f.Why, f.Name)
		require.False(t, seen[f.Name], "duplicate %s", f.Name)
		seen[f.Name] = true
	}
	for _, name := range []string{"runtime.futex", "runtime.lock2", "runtime.unlock2", "sync.(*Mutex).lockSlow", "internal/sync.(*Mutex).lockSlow"} {
		require.True(t, seen[name], name)
	}
}

func TestMeasureWhileProfilingIsErrProfilerBusy(t *testing.T) {
	require.NoError(t, pprof.StartCPUProfile(&bytes.Buffer{}))
	defer pprof.StopCPUProfile()
	ran := false
	_, err := Measure(func() { ran = true })
	require.ErrorIs(t, err, ErrProfilerBusy)
	require.False(t, ran, "f must not run when it cannot be measured")
}

func TestMeasureReleasesTheProfilerWhenFPanics(t *testing.T) {
	require.Panics(t, func() { _, _ = Measure(func() { panic("boom") }) })
	_, err := Measure(func() {})
	require.NoError(t, err)
}

// burn keeps every P busy computing, without touching locks, until stop is set.
func burn(stop *atomic.Bool) {
	var wg sync.WaitGroup
	for g := 0; g < runtime.GOMAXPROCS(0); g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := 0
			for !stop.Load() {
				for i := 0; i < 1000; i++ {
					x += i * i
				}
			}
			_ = x
		}()
	}
	wg.Wait()
}

// hammer keeps 4 goroutines per P fighting over one mutex until stop is set.
func hammer(stop *atomic.Bool) {
	var (
		mu sync.Mutex
		n  int
		wg sync.WaitGroup
	)
	for g := 0; g < 4*runtime.GOMAXPROCS(0); g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				mu.Lock()
				n++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

// measureFor profiles work in slices of d of wall time until the profile holds at
// least minSamples samples, and returns the sum. On a loaded machine a slice
// may get little CPU (8 samples in five slices of 200 ms, with both cores
// busy), so the count, not a number of slices, ends the loop; if even
// measureBudget of wall time does not give minSamples, there is nothing to
// compare and the test is skipped as inconclusive.
func measureFor(t *testing.T, d time.Duration, minSamples int64, work func(*atomic.Bool)) Share {
	t.Helper()
	var total Share
	start := time.Now()
	for total.Samples < minSamples {
		if time.Since(start) > measureBudget {
			t.Skipf("inconclusive: %d CPU-profile samples in %v, want %d (the machine is too busy)",
				total.Samples, measureBudget, minSamples)
		}
		var stop atomic.Bool
		timer := time.AfterFunc(d, func() { stop.Store(true) })
		s, err := Measure(func() { work(&stop) })
		timer.Stop()
		require.NoError(t, err)
		total.Samples += s.Samples
		total.Contended += s.Contended
	}
	return total
}

// measureBudget is the most wall time measureFor spends on one measurement.
const measureBudget = 30 * time.Second

// A contended mutex shows a larger share than the same time spent computing.
// Timed: it profiles for about half a second of CPU time (longer in wall time
// on a busy machine), so it skips under -short.
func TestTimedMeasureSeesMutexContention(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: profiles for about half a second")
	}
	const d = 200 * time.Millisecond
	calm := measureFor(t, d, 20, burn)
	contended := measureFor(t, d, 40, hammer)
	require.Positive(t, calm.Samples)
	require.Positive(t, contended.Samples)
	if raceEnabled {
		t.Logf("race build: contended %v, calm %v (not compared)", contended, calm)
		return
	}
	require.Positive(t, contended.Contended, "contended %v", contended)
	require.Greater(t, contended.Percent(), calm.Percent(), "contended %v, calm %v", contended, calm)
}

func TestRunReportsAProfileFile(t *testing.T) {
	p := synthetic([]stack{
		{3, []string{"runtime.futex", "runtime.futexsleep", "main.f"}},
		{1, []string{"main.work"}},
	})
	path := filepath.Join(t.TempDir(), "cpu.pprof")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, p.Write(f))
	require.NoError(t, f.Close())

	var out, errOut bytes.Buffer
	require.NoError(t, Run([]string{"-top", "1", path}, &out, &errOut))
	require.Contains(t, out.String(), "futex-share: 75.0% of 4 samples")
	require.Contains(t, out.String(), "runtime.futex\n")
	require.NotContains(t, out.String(), "runtime.futexsleep", "-top 1 lists one frame")
}

// errUsage in a test's table stands for a *cmdflag.UsageError.
var errUsage = errors.New("usage")

// -json writes the report as every command writes JSON: -json FILE beside
// the text, -json - on stdout instead of it. profile had no JSON.
func TestRunWritesJSON(t *testing.T) {
	p := synthetic([]stack{
		{3, []string{"runtime.futex", "runtime.futexsleep", "main.f"}},
		{1, []string{"main.work"}},
	})
	path := filepath.Join(t.TempDir(), "cpu.pprof")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, p.Write(f))
	require.NoError(t, f.Close())

	var out, errOut bytes.Buffer
	require.NoError(t, Run([]string{"-json", "-", "-top", "1", path}, &out, &errOut))
	var js reportJSON
	require.NoError(t, json.Unmarshal(out.Bytes(), &js), out.String())
	require.Equal(t, reportJSON{Profile: path, Samples: 4, Contended: 3, FutexSharePct: 75,
		Frames: []frameJSON{{Function: "runtime.futex", CumPct: 75, FlatPct: 75}}}, js)

	jsonPath := filepath.Join(t.TempDir(), "p.json")
	out.Reset()
	require.NoError(t, Run([]string{"-json", jsonPath, path}, &out, &errOut))
	require.Contains(t, out.String(), "futex-share: 75.0% of 4 samples", "the text as without -json")
	b, err := os.ReadFile(jsonPath)
	require.NoError(t, err)
	require.Contains(t, string(b), `"futex_share_pct": 75`)
}

func TestRunErrors(t *testing.T) {
	garbage := filepath.Join(t.TempDir(), "garbage.pprof")
	require.NoError(t, os.WriteFile(garbage, []byte("not a profile"), 0o600))
	tests := []struct {
		name    string
		args    []string
		wantIs  error
		wantMsg string
	}{
		{"no file", nil, errUsage, "want one profile file"},
		{"two files", []string{"a", "b"}, errUsage, "want one profile file"},
		// the message names the flag that is wrong, not both requirements
		{"negative -top", []string{"-top", "-1", "f.pprof"}, errUsage, "-top = -1, want ≥ 0"},
		{"missing file", []string{"/nonexistent/cpu.pprof"}, os.ErrNotExist, "/nonexistent/cpu.pprof"},
		{"not a profile", []string{garbage}, nil, "garbage.pprof"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Run(tt.args, &bytes.Buffer{}, &bytes.Buffer{})
			require.Error(t, err)
			switch tt.wantIs {
			case nil:
			case errUsage:
				require.True(t, cmdflag.IsUsage(err), "%v", err)
			default:
				require.True(t, errors.Is(err, tt.wantIs), "%v", err)
			}
			require.Contains(t, err.Error(), tt.wantMsg)
		})
	}
}

// Run reads a bounded amount: profile /dev/zero used 3.2 GB, and a 14 MB gzip
// bomb 6.9 GB once decompressed.
func TestParseBoundedRefusesHugeInput(t *testing.T) {
	var bomb bytes.Buffer
	zw := gzip.NewWriter(&bomb)
	_, err := zw.Write(make([]byte, 1<<20)) // 1 MiB of zeros, about 1 KiB compressed
	require.NoError(t, err)
	require.NoError(t, zw.Close())

	_, err = parseBounded(bytes.NewReader(bomb.Bytes()), "bomb.pprof", 1<<20, 64<<10)
	require.ErrorIs(t, err, ErrTooLarge)
	require.Contains(t, err.Error(), "bomb.pprof: 1048576 bytes once decompressed, more than 65536")

	// The trailer's size refuses it before a byte is decompressed: profile
	// on a 2 GB bomb decompressed 256 MiB, 7 s and 620 MB, before refusing
	// it. Its deflate stream damaged, the bomb is refused all the same.
	broken := bytes.Clone(bomb.Bytes())
	for i := 10; i < len(broken)-8; i++ {
		broken[i] = 0xff
	}
	_, err = parseBounded(bytes.NewReader(broken), "bomb.pprof", 1<<20, 64<<10)
	require.ErrorIs(t, err, ErrTooLarge)

	// Past 4 GiB the trailer's size wraps: the decompressed bytes are
	// counted as they come.
	wrapped := bytes.Clone(bomb.Bytes())
	copy(wrapped[len(wrapped)-4:], []byte{0, 0, 0, 0})
	_, err = parseBounded(bytes.NewReader(wrapped), "bomb.pprof", 1<<20, 64<<10)
	require.ErrorIs(t, err, ErrTooLarge)
	require.Contains(t, err.Error(), "bomb.pprof: more than 65536 bytes once decompressed")

	// Many members, each small with a small trailer: the decompressed
	// bytes are counted across members, and the members themselves.
	var multi bytes.Buffer
	for range 8 {
		zw := gzip.NewWriter(&multi)
		_, err := zw.Write(make([]byte, 16<<10))
		require.NoError(t, err)
		require.NoError(t, zw.Close())
	}
	_, err = parseBounded(bytes.NewReader(multi.Bytes()), "multi.pprof", 1<<20, 64<<10)
	require.ErrorIs(t, err, ErrTooLarge)
	require.Contains(t, err.Error(), "multi.pprof: more than 65536 bytes once decompressed")
	var empties bytes.Buffer
	for range maxGzipMembers + 1 {
		zw := gzip.NewWriter(&empties)
		require.NoError(t, zw.Close())
	}
	_, err = parseBounded(bytes.NewReader(empties.Bytes()), "empties.pprof", 1<<20, 64<<10)
	require.ErrorIs(t, err, ErrTooLarge)
	require.Contains(t, err.Error(), "empties.pprof: more than 64 gzip members")

	// gzip inside gzip: profile.ParseData decompresses the inner one again,
	// past every bound.
	var nested bytes.Buffer
	zw = gzip.NewWriter(&nested)
	_, err = zw.Write(bomb.Bytes())
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	_, err = parseBounded(bytes.NewReader(nested.Bytes()), "nested.pprof", 1<<20, 64<<10)
	require.ErrorIs(t, err, ErrTooLarge)
	require.Contains(t, err.Error(), "nested.pprof: gzip inside gzip")

	_, err = parseBounded(zeroReader{}, "/dev/zero", 64<<10, 1<<20)
	require.ErrorIs(t, err, ErrTooLarge)
	require.Contains(t, err.Error(), "/dev/zero: file larger than 65536 bytes")

	// a real profile within the bounds, compressed (as Write makes it) or not
	p := synthetic([]stack{{3, []string{"runtime.futex", "main.f"}}, {1, []string{"main.work"}}})
	var gz bytes.Buffer
	require.NoError(t, p.Write(&gz))
	got, err := parseBounded(bytes.NewReader(gz.Bytes()), "cpu.pprof", 1<<20, 1<<20)
	require.NoError(t, err)
	require.Len(t, got.Sample, 2)
	var raw bytes.Buffer
	require.NoError(t, p.WriteUncompressed(&raw))
	_, err = parseBounded(bytes.NewReader(raw.Bytes()), "cpu.pprof", 1<<20, 1<<20)
	require.NoError(t, err)
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
