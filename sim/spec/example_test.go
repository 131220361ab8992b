package spec_test

import (
	"fmt"
	"strings"

	"github.com/innosim/innosim/sim/spec"
)

// A box described by its spec sheet, and what the simulator takes from it
// when a benchmark client is pinned to a quarter of its CPUs.
func ExampleParse() {
	m, err := spec.Parse(strings.NewReader(`
name = two-westmeres
sockets = 2
cores_per_socket = 6
threads_per_core = 2
l2_per_core = 256KiB
l3_per_socket = 12MiB
kernel = 2.6.32-220.el6.x86_64
`), "two-westmeres.machine")
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := m.Derive()
	if err != nil {
		fmt.Println(err)
		return
	}
	server, client := spec.ClientSplit(p.CPUs)
	l2, llc, _ := p.CostCaches(server)
	fmt.Printf("%d CPUs: %d for the server, %d for the client\n", p.CPUs, server, client)
	fmt.Printf("caches of the server's share: L2 %d KiB, LLC %d MiB\n", l2>>10, llc>>20)
	fmt.Printf("%s: latency %v, slice of one of 300 runnable threads %v, sleeper credit %v\n",
		p.Sched.Policy, p.Sched.Latency, p.Sched.Slice(300), p.Sched.SleeperCredit)
	fmt.Println("profile:", p.Profile)
	// Output:
	// 24 CPUs: 18 for the server, 6 for the client
	// caches of the server's share: L2 2304 KiB, LLC 18 MiB
	// cfs: latency 20ms, slice of one of 300 runnable threads 4ms, sleeper credit 10ms
	// profile: old-kernel
}
