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

func newFlagSet(out *strings.Builder) (*flag.FlagSet, *time.Duration, *int) {
	fs := flag.NewFlagSet("cmd", flag.ContinueOnError)
	fs.SetOutput(out)
	var d time.Duration
	DurationVar(fs, &d, "measure", 100*time.Millisecond, "time measured, a `duration` of 1ms..1m")
	n := fs.Int("n", 1, "a count")
	fs.Usage = func() {
		out.WriteString("usage: cmd [flags]\n")
		fs.PrintDefaults()
	}
	return fs, &d, n
}

// A bad flag is an error, and nothing is printed: the flag package printed
// the message and then the whole usage.
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
			err := Parse(fs, tc.args)
			var fe *FlagError
			require.True(t, errors.As(err, &fe), "%v", err)
			assert.EqualError(t, err, tc.want)
			assert.Empty(t, out.String())
			assert.Same(t, &out, fs.Output(), "the output is restored")
		})
	}
}

// -h prints the usage, with the duration flag's type and default.
func TestParseHelpPrintsTheUsage(t *testing.T) {
	var out strings.Builder
	fs, _, _ := newFlagSet(&out)
	err := Parse(fs, []string{"-h"})
	assert.ErrorIs(t, err, flag.ErrHelp)
	assert.Contains(t, out.String(), "usage: cmd [flags]\n")
	assert.Contains(t, out.String(), "-measure duration\n")
	assert.Contains(t, out.String(), "(default 100ms)")
}

func TestParseReadsDurations(t *testing.T) {
	var out strings.Builder
	fs, d, n := newFlagSet(&out)
	require.NoError(t, Parse(fs, []string{"-measure", "1.5s", "-n", "3", "rest"}))
	assert.Equal(t, 1500*time.Millisecond, *d)
	assert.Equal(t, 3, *n)
	assert.Equal(t, []string{"rest"}, fs.Args())
	assert.Equal(t, 1500*time.Millisecond, fs.Lookup("measure").Value.(flag.Getter).Get())
}
