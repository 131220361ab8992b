package cmdflag

import (
	"errors"
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newFlagSet(out *strings.Builder) (*FlagSet, *time.Duration, *int) {
	fs := New("cmd", out, "cmd [flags]", "Does what cmd does.")
	var d time.Duration
	fs.DurationVar(&d, "measure", 100*time.Millisecond, "time measured, a `duration` of 1ms..1m")
	n := fs.Int("n", 1, "a count")
	return fs, &d, n
}

// A bad flag is a *UsageError marked BadFlag, and nothing is printed: the
// flag package printed the message and then the whole usage.
func TestParseReturnsABadFlagAndPrintsNothing(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"-n", "x"}, `invalid value "x" for flag -n: parse error`},
		{[]string{"-n"}, "flag needs an argument: -n"},
		{[]string{"-measure", "5"}, `invalid value "5" for flag -measure: no unit: want a duration with a unit, such as 100ms or 5s`},
		{[]string{"-measure", "soon"}, `invalid value "soon" for flag -measure: want a duration with a unit, such as 100ms or 5s`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out strings.Builder
			fs, _, _ := newFlagSet(&out)
			err := fs.Parse(tc.args)
			var ue *UsageError
			require.True(t, errors.As(err, &ue), "%v", err)
			assert.True(t, ue.BadFlag)
			assert.EqualError(t, err, tc.want)
			assert.Empty(t, out.String())
			assert.Same(t, &out, fs.Output(), "the output is restored")
		})
	}
}

// A flag given twice is refused: the flag package keeps the last.
func TestParseRefusesAFlagGivenTwice(t *testing.T) {
	var out strings.Builder
	fs, _, _ := newFlagSet(&out)
	var tables paths
	fs.Var(&tables, "table", "a table (repeatable)")
	err := fs.Parse([]string{"-n", "1", "-n=2"})
	assert.EqualError(t, err, "-n given twice: want it once (the last would replace the first)")
	assert.True(t, IsUsage(err))
	var ue *UsageError
	require.ErrorAs(t, err, &ue)
	assert.False(t, ue.BadFlag, "the flag package did not refuse it")

	fs, _, _ = newFlagSet(&out)
	fs.Var(&tables, "table", "a table (repeatable)")
	require.NoError(t, fs.Parse([]string{"-table", "a", "-table", "b"}))
	assert.Equal(t, paths{"a", "b"}, tables)
}

type paths []string

func (p *paths) String() string     { return strings.Join(*p, ",") }
func (p *paths) Set(v string) error { *p = append(*p, v); return nil }
func (p *paths) Repeatable()        {}

// -h prints the help: synopsis, description and the flags, with the
// duration flag's type and default.
func TestParseHelpPrintsTheUsage(t *testing.T) {
	var out strings.Builder
	fs, _, _ := newFlagSet(&out)
	err := fs.Parse([]string{"-h"})
	assert.ErrorIs(t, err, flag.ErrHelp)
	assert.True(t, strings.HasPrefix(out.String(), "usage: cmd [flags]\n\nDoes what cmd does.\n\nflags:\n"), out.String())
	assert.Contains(t, out.String(), "-measure duration\n")
	assert.Contains(t, out.String(), "(default 100ms)")

	out.Reset()
	bare := New("bare", &out, "bare [NAME ...]")
	assert.ErrorIs(t, bare.Parse([]string{"-help"}), flag.ErrHelp)
	assert.Equal(t, "usage: bare [NAME ...]\n", out.String(), "no flags, no flags section")
}

func TestParseReadsDurations(t *testing.T) {
	var out strings.Builder
	fs, d, n := newFlagSet(&out)
	require.NoError(t, fs.Parse([]string{"-measure", "1.5s", "-n", "3", "rest"}))
	assert.Equal(t, 1500*time.Millisecond, *d)
	assert.Equal(t, 3, *n)
	assert.Equal(t, []string{"rest"}, fs.Args())
	assert.Equal(t, 1500*time.Millisecond, fs.Lookup("measure").Value.(flag.Getter).Get())
	assert.True(t, fs.Given("measure"))
	assert.False(t, fs.Given("bogus"))
}

// ParseInterspersed reads args as the flag package does, at every position.
func TestParseInterspersedReadsFlagsAsTheFlagPackageDoes(t *testing.T) {
	for _, c := range []struct {
		name        string
		args        []string
		positionals []string
		json        string
		quiet       bool
	}{
		{"flags before and after", []string{"-json", "a.json", "d", "-quiet"}, []string{"d"}, "a.json", true},
		{"a value that looks like a flag or a name", []string{"d", "-json", "-quiet"}, []string{"d"}, "-quiet", false},
		{"a value after =", []string{"c", "--json=x", "d"}, []string{"c", "d"}, "x", false},
		{"a boolean takes no value", []string{"-quiet", "c"}, []string{"c"}, "", true},
		{"- is a positional", []string{"-", "-quiet"}, []string{"-"}, "", true},
		{"-- ends the flags", []string{"c", "--", "-json", "x"}, []string{"c", "-json", "x"}, "", false},
		{"-- as a value does not", []string{"-json", "--", "c", "-quiet"}, []string{"c"}, "--", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out strings.Builder
			fs := New("t", &out, "t")
			json, quiet := fs.String("json", "", ""), fs.Bool("quiet", false, "")
			pos, err := fs.ParseInterspersed(c.args)
			require.NoError(t, err)
			assert.Equal(t, c.positionals, pos)
			assert.Equal(t, c.json, *json)
			assert.Equal(t, c.quiet, *quiet)
		})
	}
	var out strings.Builder
	fs := New("t", &out, "t")
	fs.String("json", "", "")
	_, err := fs.ParseInterspersed([]string{"-json", "a", "c", "-json", "b"})
	assert.ErrorContains(t, err, "-json given twice")
	_, err = fs.ParseInterspersed([]string{"c", "-nope", "d"})
	assert.True(t, IsUsage(err), "an unknown flag after a name: %v", err)
}

func TestExclusiveNamesTheFlagsGiven(t *testing.T) {
	var out strings.Builder
	fs := New("t", &out, "t")
	fs.String("costs", "", "")
	fs.String("profile", "old-kernel", "")
	fs.Bool("x", false, "")
	require.NoError(t, fs.Parse([]string{"-costs", "c"}))
	assert.NoError(t, fs.Exclusive("costs", "profile"))

	fs = New("t", &out, "t")
	fs.String("costs", "", "")
	fs.String("profile", "old-kernel", "")
	fs.Bool("x", false, "")
	require.NoError(t, fs.Parse([]string{"-profile", "old-kernel", "-x", "-costs", "c"}))
	err := fs.Exclusive("costs", "profile")
	assert.EqualError(t, err, "-costs and -profile both given: want one", "a default value given is given")
	assert.True(t, IsUsage(err))
	assert.EqualError(t, fs.Exclusive("x", "costs", "profile"), "-x, -costs and -profile given: want one of them")
	assert.Equal(t, []string{"-profile", "-x"}, fs.GivenOf("profile", "threads", "x"))
}

func TestCountsAreSortedAndInRange(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want []int
		err  string
	}{
		{"4,1,2", []int{1, 2, 4}, ""},
		{" 8 ", []int{8}, ""},
		{"0", nil, "0 is out of range: want 1..64"},
		{"1,65", nil, "65 is out of range: want 1..64"},
		{"1,x", nil, `"x" is not a whole number: want counts in 1..64, comma-separated`},
		{"", nil, `"" is not a whole number`},
		{"1,4,1", nil, "1 given twice (positions 1 and 3): want each value once"},
	} {
		t.Run(tc.v, func(t *testing.T) {
			var out strings.Builder
			fs := New("t", &out, "t")
			var threads []int
			fs.CountsVar(&threads, "threads", []int{1, 2}, 64, "thread `counts`")
			err := fs.Parse([]string{"-threads", tc.v})
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
				assert.Equal(t, []int{1, 2}, threads, "the default stays")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, threads)
		})
	}
	var out strings.Builder
	fs := New("t", &out, "t")
	var threads []int
	fs.CountsVar(&threads, "threads", []int{1, 2}, 64, "thread `counts`")
	fs.PrintDefaults()
	assert.Contains(t, out.String(), "-threads counts\n")
	assert.Contains(t, out.String(), "(default 1,2)")
}

func TestKeyValues(t *testing.T) {
	k, v, err := KeyValues("-vary", "innodb_thread_concurrency=0,8")
	require.NoError(t, err)
	assert.Equal(t, "innodb_thread_concurrency", k)
	assert.Equal(t, []string{"0", "8"}, v)
	for _, tc := range []struct{ s, want string }{
		{"nokey", `-vary "nokey": want key=v1,v2`},
		{"=1,2", `-vary "=1,2": want key=v1,v2`},
		{"k=", `-vary "k=": want key=v1,v2`},
		{"", `-vary "": want key=v1,v2`},
		{"innodb_use_native_aio=OFF,", "-vary innodb_use_native_aio: value 2 of 2 is empty: want key=v1,v2 with no empty value"},
		{"k=a, ,b", "-vary k: value 2 of 3 is empty"},
		{"sched=cfs,ts,ts", `-vary sched: value "ts" given twice (positions 2 and 3): want each value once`},
	} {
		_, _, err := KeyValues("-vary", tc.s)
		assert.ErrorContains(t, err, tc.want, tc.s)
		assert.True(t, IsUsage(err), tc.s)
	}
}

func TestPairs(t *testing.T) {
	keys := []string{"units", "read", "dist"}
	p, err := Pairs("units=2, read=5ms", keys)
	require.NoError(t, err)
	assert.Equal(t, []Pair{{"units", "2"}, {"read", "5ms"}}, p)
	for _, tc := range []struct{ s, want string }{
		{"units", `"units": want key=value (units, read, dist)`},
		{"units=1,units=2", `key "units" given twice: want each key once (the last would replace the first)`},
		{"units=1,write=2ms", `key "write": want one of units, read, dist`},
	} {
		_, err := Pairs(tc.s, keys)
		assert.EqualError(t, err, tc.want, tc.s)
	}
}

// The rules a command declares are checked in their order, each naming the
// flags it refuses.
func TestCheckRefusesTheFirstRuleBroken(t *testing.T) {
	newSet := func() (*FlagSet, *string, *string, *time.Duration) {
		var out strings.Builder
		fs := New("t", &out, "t")
		w, s := fs.String("workload", "", ""), fs.String("sched", "cfs", "")
		var d time.Duration
		fs.DurationVar(&d, "measure", 100*time.Millisecond, "")
		fs.String("vary", "", "")
		fs.String("costs", "", "")
		fs.String("profile", "old-kernel", "")
		fs.Bool("quiet", false, "")
		return fs, w, s, &d
	}
	quietWithCosts := func(fs *FlagSet) Rule {
		return Refuse(func() bool { return fs.Given("quiet") && fs.Given("costs") }, "-quiet with -costs: want %s", "one")
	}
	rules := func(fs *FlagSet) []Rule {
		return []Rule{
			NoArgs(),
			Exclusive("costs", "profile"),
			Required("workload", "one of a, b"),
			OneOf("workload", "a", "b"),
			OneOf("sched", "cfs", "ts"),
			Within("measure", time.Millisecond, time.Minute),
			NotEmpty("vary", "key=v1,v2, or no -vary"),
			Valid("costs", func(v string) error {
				if strings.HasSuffix(v, ".profile") {
					return nil
				}
				return errors.New("want a .profile")
			}),
			quietWithCosts(fs),
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-workload", "a"}, ""},
		{[]string{"-workload", "a", "x"}, `unexpected argument "x"`},
		{[]string{"-workload", "a", "-costs", "c.profile", "-profile", "new-kernel"}, "-costs and -profile both given: want one"},
		{nil, "-workload is required (one of a, b)"},
		{[]string{"-workload", "c"}, `-workload "c": want a or b`},
		{[]string{"-workload", "a", "-sched", "bsd"}, `-sched "bsd": want cfs or ts`},
		{[]string{"-workload", "a", "-sched", ""}, `-sched "": want cfs or ts`},
		{[]string{"-workload", "a", "-measure", "2m"}, "-measure 2m0s: want 1ms..1m"},
		{[]string{"-workload", "a", "-measure", "0s"}, "-measure 0s: want 1ms..1m"},
		{[]string{"-workload", "a", "-vary", ""}, `-vary "": want key=v1,v2, or no -vary`},
		{[]string{"-workload", "a", "-costs", "x"}, "-costs: want a .profile"},
		{[]string{"-workload", "a", "-costs", "c.profile", "-quiet"}, "-quiet with -costs: want one"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			fs, _, _, _ := newSet()
			require.NoError(t, fs.Parse(tc.args))
			err := fs.Check(rules(fs)...)
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			assert.EqualError(t, err, tc.want)
			assert.True(t, IsUsage(err))
		})
	}
}

func TestOrListsTheChoices(t *testing.T) {
	assert.Equal(t, "a", Or([]string{"a"}))
	assert.Equal(t, "a or b", Or([]string{"a", "b"}))
	assert.Equal(t, "a, b or c", Or([]string{"a", "b", "c"}))
	assert.Equal(t, "one of a, b, c, d", Or([]string{"a", "b", "c", "d"}))
	assert.NoError(t, Choice(`-x "a"`, "a", "a", "b"))
	assert.EqualError(t, Choice("-vary x=c", "c", "a", "b"), "-vary x=c: want a or b")
	assert.Equal(t, "1h", bound(time.Hour))
	assert.Equal(t, "1m30s", bound(90*time.Second))
	assert.Equal(t, "1ns", bound(time.Nanosecond))
	assert.Equal(t, "7", bound(7))
}
