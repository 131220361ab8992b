// Command innosim reproduces the reference studies in simulation, predicts what a
// my.cnf does on a machine of N cores, fits the Universal Scalability Law,
// compares benchmark runs, reads CPU profiles for contention, and calibrates the
// simulator's costs on this machine.
//
//	innosim reproduce [--json F] [all | a b c d ...]  published vs simulated, then a PASS/FAIL line per study
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
// output, byte for byte, whatever GOMAXPROCS. Every command that writes JSON
// takes --json FILE, or --json - for stdout instead of its text (as --csv -
// does). Flags may come before or after a command's arguments. It exits 0
// when done, 1 on a failure or a FAIL verdict, 2 for a command line the
// command cannot run; Ctrl-C (or SIGTERM) stops a command, which cleans up
// and exits 128 + the signal's number (130), and a second one ends the
// process at once (docs/cmd/README.md).
package main

import (
	"context"
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

func main() {
	// SIGPIPE too: a reader of stdout or stderr that goes away (| head) would
	// otherwise kill the process at its next write, before any cleanup (live's
	// server and datadir). Received, it stops the command as Ctrl-C does, and
	// the write returns EPIPE.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGPIPE)
	ctx, stop := notifyContext(context.Background(), sigs, os.Stderr, os.Exit)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	signal.Stop(sigs)
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
		return exitStatus(ctx, name, c.run(ctx, rest, stdout, stderr), stderr)
	}
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	if s := cmdflag.Suggest(name, names); s != "" {
		fmt.Fprintf(stderr, "innosim: unknown command %q: did you mean %s?\n", name, s)
		fmt.Fprintln(stderr, "run 'innosim help' for the commands")
		return 2
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
