package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/innosim/innosim/internal/cmdflag"
	"github.com/innosim/innosim/sim"
)

func workloadsCommand() command {
	return command{
		name:    "workloads",
		summary: "list the simulator's workloads: what each executes and the unit it counts",
		run:     listWorkloads,
	}
}

// listWorkloads prints every built-in workload (or those named) with its
// unit and its description (sim.Workload's Unit and Doc), wrapped at 100
// columns.
func listWorkloads(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := cmdflag.New("workloads", stderr, "innosim workloads [NAME ...]",
		"Lists the simulator's workloads (run --workload's values) with what each executes",
		"per unit and the unit it counts; names limit the list to them.")
	names, err := fs.ParseInterspersed(args)
	if err != nil {
		return err
	}
	if len(names) == 0 {
		names = sim.WorkloadNames()
	}
	for _, n := range names {
		if _, err := sim.LookupWorkload(n); err != nil {
			return cmdflag.Usagef("workload %q: want one of %s", n, strings.Join(sim.WorkloadNames(), ", "))
		}
	}
	for i, n := range names {
		w, _ := sim.LookupWorkload(n)
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		fmt.Fprintf(stdout, "%s (%s)\n", w.Name, w.Unit)
		for _, line := range wrapWords(w.Doc, 96) {
			fmt.Fprintf(stdout, "    %s\n", line)
		}
	}
	return nil
}

// wrapWords splits text into lines of at most width runes at spaces (a word
// longer than width gets a line of its own).
func wrapWords(text string, width int) []string {
	var lines []string
	var cur strings.Builder
	for _, word := range strings.Fields(text) {
		if cur.Len() > 0 && len([]rune(cur.String()))+1+len([]rune(word)) > width {
			lines = append(lines, cur.String())
			cur.Reset()
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(word)
	}
	if cur.Len() > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}
