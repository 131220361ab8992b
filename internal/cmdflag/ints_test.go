package cmdflag

import (
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A whole-number flag names its range for every value it refuses: fit -n
// 99999999999999999999 said "value out of range" and --seed -1 "parse
// error", neither saying what is wanted.
func TestIntFlagsNameTheirRange(t *testing.T) {
	for _, tt := range []struct{ arg, want string }{
		{"-n=0", `invalid value "0" for flag -n: 0 is out of range: want 1..64`},
		{"-n=65", `invalid value "65" for flag -n: 65 is out of range: want 1..64`},
		{"-n=99999999999999999999", `invalid value "99999999999999999999" for flag -n: 99999999999999999999 is out of range: want 1..64`},
		{"-n=two", `invalid value "two" for flag -n: "two" is not a whole number: want 1..64`},
		{"-seed=-1", `invalid value "-1" for flag -seed: -1 is out of range: want 0..18446744073709551615`},
		{"-seed=18446744073709551616", `invalid value "18446744073709551616" for flag -seed: 18446744073709551616 is out of range: want 0..18446744073709551615`},
		{"-seed=1.5", `invalid value "1.5" for flag -seed: "1.5" is not a whole number: want 0..18446744073709551615`},
	} {
		fs := New("t", io.Discard, "t")
		fs.IntRange("n", 1, 1, 64, "")
		var seed uint64
		fs.Uint64Var(&seed, "seed", 1, "")
		err := fs.Parse([]string{tt.arg})
		require.Error(t, err, tt.arg)
		assert.True(t, IsUsage(err))
		assert.EqualError(t, err, tt.want)
	}
	fs := New("t", io.Discard, "t")
	n := fs.IntRange("n", 1, 1, 64, "")
	var seed uint64
	fs.Uint64Var(&seed, "seed", 1, "")
	require.NoError(t, fs.Parse([]string{"-n", "64", "-seed", "18446744073709551615"}))
	assert.Equal(t, 64, *n)
	assert.Equal(t, uint64(18446744073709551615), seed)
}
