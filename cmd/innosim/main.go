// Command innosim reproduces the reference studies in simulation, predicts what a
// my.cnf does on a machine of N cores, fits the Universal Scalability Law,
// compares benchmark runs, reads CPU profiles for contention, and calibrates the
// simulator's costs on this machine.
//
//	innosim reproduce [--json F] [a|b|c|d|all]  published vs simulated, then a PASS/FAIL line per study
//	innosim validate [--table F.csv]  every published table and field case: error, fitted or predicted
//	innosim run --workload W --threads 1,2,4 --cpus 4,8 [--cnf FILE] [--aio simulated|native] [--vary key=v1,v2] [--csv F] [--json F] [--plot F.svg]
//	innosim fit FILE.csv              fit σ, κ, λ to (concurrency, throughput) rows, or per series of run --csv
//	innosim compare OLD.txt NEW.txt   benchmark change with CI and p-value; none across environments
//	innosim profile FILE.pprof        futex-share and top contention frames of a CPU profile
//	innosim calibrate [--out FILE] [--check]  this machine's costs; prediction vs BenchmarkAIOWake
//	innosim live [--workload W,W] [--threads 1,2,4] [--setting thread_handling=a,b] [--csv F]  a real MariaDB under sysbench
//	innosim workloads [NAME ...]      the simulator's workloads: what each executes, the unit it counts
//
// Run "innosim help COMMAND" for a command's flags, "innosim --version" for the
// module version and VCS revision it was built from. The same seed gives the same
// output, byte for byte, whatever GOMAXPROCS.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/innosim/innosim/internal/cmdflag"
)

// command is one subcommand. A new subcommand is a new file with a function
// returning its command, and one line in commands.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		reproduceCommand(),
		validateCommand(),
		runCommand(),
		fitCommand(),
		compareCommand(),
		profileCommand(),
		calibrateCommand(),
		liveCommand(),
		workloadsCommand(),
	}
}

// errFailed marks a run that worked but whose verdict is FAIL (a study, a
// regression, a calibration check): exit status 1, nothing more to print.
var errFailed = errors.New("verdict FAIL")

// errUsage marks a command-line mistake (exit status 2); the message is in
// the wrapping error. A bad flag (a *cmdflag.FlagError in the chain) is
// printed with a pointer to the command's help, not with its usage.
var errUsage = errors.New("usage")

// parseFlags parses a subcommand's flags. done tells the command to stop: after
// -h (err nil; the usage is printed) or on a bad flag (errUsage wrapping the
// *cmdflag.FlagError that says what was wrong; nothing is printed).
func parseFlags(fs *flag.FlagSet, args []string) (done bool, err error) {
	if name, ok := repeatedFlag(fs, args); ok {
		return true, fmt.Errorf("%w: -%s given twice: want it once (the last would replace the first)", errUsage, name)
	}
	switch err := cmdflag.Parse(fs, args); {
	case err == nil:
		return false, nil
	case errors.Is(err, flag.ErrHelp):
		return true, nil
	default:
		return true, fmt.Errorf("%w: %w", errUsage, err)
	}
}

// parseInterspersed parses a subcommand's flags wherever they stand among
// its positional arguments, so that "validate field -table x.csv" is
// "validate -table x.csv field", and returns the positionals in their order.
// It reads args as the flag package does (repeatedFlag's reading): a
// non-flag argument ("x", "-") is a positional and the flags after it are
// still parsed; "-x=v" and "-x v" are one flag whatever v is; "--" ends the
// flags, and every argument after it is a positional, one that starts with
// "-" too. An unknown flag takes no value here, so the argument after it is
// a positional, and Parse reports the flag. done and err are parseFlags',
// a flag given twice counted over all of args.
func parseInterspersed(fs *flag.FlagSet, args []string) (positionals []string, done bool, err error) {
	var flags []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positionals = append(positionals, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			positionals = append(positionals, a)
			continue
		}
		flags = append(flags, a)
		name, _, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		fl := fs.Lookup(name)
		if fl == nil || hasValue {
			continue
		}
		if b, ok := fl.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		if i+1 < len(args) {
			i++
			flags = append(flags, args[i]) // its value
		}
	}
	if done, err := parseFlags(fs, flags); done {
		return nil, true, err
	}
	return positionals, false, nil
}

// repeatable is a flag value that may be given more than once (validate's
// -table); every other flag given twice is refused by parseFlags, since the
// flag package would keep only the last.
type repeatable interface{ Repeatable() }

// repeatedFlag returns the first flag of fs that args give twice, unless its
// value is repeatable. It reads args as the flag package does: flags up to
// "--" or the first argument that is not one; "-x=v", "-x v", and a boolean
// "-x" that takes no value. An unknown flag ends the scan (Parse reports it).
func repeatedFlag(fs *flag.FlagSet, args []string) (string, bool) {
	seen := map[string]bool{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || len(a) < 2 || a[0] != '-' {
			return "", false
		}
		name := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		name, _, hasValue := strings.Cut(name, "=")
		fl := fs.Lookup(name)
		if fl == nil {
			return "", false
		}
		if _, ok := fl.Value.(repeatable); !ok && seen[name] {
			return name, true
		}
		seen[name] = true
		b, isBool := fl.Value.(interface{ IsBoolFlag() bool })
		if !hasValue && !(isBool && b.IsBoolFlag()) {
			i++ // the value
		}
	}
	return "", false
}

func main() {
	// SIGPIPE too: a reader of stdout or stderr that goes away (| head) would
	// otherwise kill the process at its next write, before any cleanup (live's
	// server and datadir). Received, it stops the command as Ctrl-C does, and
	// the write returns EPIPE.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGPIPE)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version" || args[0] == "version") {
		if len(args) > 1 {
			fmt.Fprintf(stderr, "innosim: %s takes no arguments, got %q\n", args[0], strings.Join(args[1:], " "))
			return 2
		}
		bi, _ := debug.ReadBuildInfo()
		fmt.Fprintln(stdout, version(bi))
		return 0
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" && len(args) == 1 {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	name, rest := args[0], args[1:]
	if name == "help" {
		if len(args) > 2 {
			fmt.Fprintf(stderr, "innosim help: want one command, got %q\n", strings.Join(args[1:], " "))
			return 2
		}
		name, rest = args[1], []string{"-h"}
	}
	for _, c := range commands() {
		if c.name != name {
			continue
		}
		err := c.run(ctx, rest, stdout, stderr)
		switch {
		case err == nil:
			return 0
		case errors.Is(err, errFailed):
			return 1
		case errors.Is(err, errUsage):
			if msg := err.Error(); msg != errUsage.Error() {
				msg = strings.TrimPrefix(strings.TrimPrefix(msg, errUsage.Error()+": "), name+": ")
				fmt.Fprintf(stderr, "innosim %s: %s\n", name, msg)
			}
			if fe := (*cmdflag.FlagError)(nil); errors.As(err, &fe) {
				fmt.Fprintf(stderr, "run 'innosim help %s' for the flags\n", name)
			}
			return 2
		default:
			// a package's own prefix ("calibrate: ...") repeats the command's
			fmt.Fprintf(stderr, "innosim %s: %s\n", name, strings.TrimPrefix(err.Error(), name+": "))
			return 1
		}
	}
	fmt.Fprintf(stderr, "innosim: unknown command %q\n", name)
	usage(stderr)
	return 2
}

// version describes the build: "innosim VERSION (REVISION[, modified], BUILT)
// GOVERSION", from the module version and the VCS settings the go command
// stamps into the binary (debug.ReadBuildInfo). A binary built by go run or
// go build in a checkout has version "(devel)" and the commit; one from go
// install module@version has that version and no VCS settings.
func version(bi *debug.BuildInfo) string {
	if bi == nil {
		return "innosim (no build information)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, when string
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	var vcs []string
	if rev != "" {
		vcs = append(vcs, "commit "+rev)
	}
	if modified {
		vcs = append(vcs, "modified")
	}
	if when != "" {
		vcs = append(vcs, when)
	}
	out := "innosim " + v
	if len(vcs) > 0 {
		out += " (" + strings.Join(vcs, ", ") + ")"
	}
	return out + " " + bi.GoVersion
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: innosim COMMAND [flags]")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'innosim help COMMAND' for a command's flags, 'innosim --version' for the build.")
}
