package mainexec

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
)

// main is a program with one flag that refuses stray arguments.
func main() {
	fs := flag.NewFlagSet("prog", flag.ExitOnError)
	n := fs.Int("n", 1, "a count")
	_ = fs.Parse(os.Args[1:])
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "unexpected argument %q\n", fs.Arg(0))
		os.Exit(2)
	}
	fmt.Printf("n=%d\n", *n)
}

func TestMain(m *testing.M) { Main(m, main) }

func TestRunPassesTheArgumentsAndReturnsTheStatus(t *testing.T) {
	out, status := Run(t, "-n", "3")
	assert.Equal(t, 0, status, out)
	assert.Equal(t, "n=3\n", out)

	out, status = Run(t, "-n", "3", "two words")
	assert.Equal(t, 2, status, out)
	assert.Contains(t, out, `unexpected argument "two words"`)

	out, status = Run(t)
	assert.Equal(t, 0, status, out)
	assert.Equal(t, "n=1\n", out)
}
