package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/innosim/innosim/internal/cmdflag"
	"github.com/innosim/innosim/sim"
)

// clientFlag is run's -client: the benchmark client on the simulated machine
// (sim.Cell.Client), as innosim live runs sysbench beside the server, given
// as "cpu=5us,send=1us,recv=1us,server-cpu=24us,server-footprint=84KiB,
// client-footprint=20KiB" (every key optional; durations 0..1s, sizes in
// bytes, KiB, MiB or GiB, 0..1GiB; see sim.ClientConfig for each field; cpu
// is per unit of the workload: query, transaction or connection). Empty:
// the client stays off the machine, its round trip a sleep.
// arg is the flag's argument as given ("on"), for the errors to name.
type clientFlag struct {
	cfg *sim.ClientConfig
	arg string
}

// clientKeys are -client's keys, in the order String writes them.
var clientKeys = []string{"cpu", "send", "recv", "server-cpu", "server-footprint", "client-footprint"}

// String returns the client's settings, or "" for none.
func (c *clientFlag) String() string {
	if c.cfg == nil {
		return ""
	}
	k := c.cfg
	return fmt.Sprintf("cpu=%v,send=%v,recv=%v,server-cpu=%v,server-footprint=%d,client-footprint=%d",
		k.Event, k.Send, k.Recv, k.ServerCPU, k.ServerFootprint, k.ClientFootprint)
}

// Set parses key=value pairs; "on" alone is a client with every field 0.
// Errors name the key and its allowed values.
func (c *clientFlag) Set(v string) error {
	var cfg sim.ClientConfig
	if strings.TrimSpace(v) == "on" {
		c.cfg, c.arg = &cfg, v
		return nil
	}
	durations := map[string]*time.Duration{"cpu": &cfg.Event, "send": &cfg.Send, "recv": &cfg.Recv, "server-cpu": &cfg.ServerCPU}
	sizes := map[string]*int64{"server-footprint": &cfg.ServerFootprint, "client-footprint": &cfg.ClientFootprint}
	for _, kv := range strings.Split(v, ",") {
		switch {
		case strings.TrimSpace(kv) == "on":
			return fmt.Errorf("%q: on stands alone (a client of every key 0): want on, or key=value pairs", v)
		case !strings.Contains(kv, "="):
			return fmt.Errorf("%q: want on, or key=value (%s)", kv, strings.Join(clientKeys, ", "))
		}
	}
	pairs, err := cmdflag.Pairs(v, clientKeys)
	if err != nil {
		return err
	}
	for _, p := range pairs {
		k, val := p.Key, p.Value
		if d, ok := durations[k]; ok {
			dur, err := time.ParseDuration(val)
			if err != nil || dur < 0 || dur > time.Second {
				return fmt.Errorf("%s = %q: want a duration 0..1s", k, val)
			}
			*d = dur
			continue
		}
		if b, ok := sizes[k]; ok {
			n, err := parseBytes(val)
			if err != nil {
				return fmt.Errorf("%s = %q: want bytes, KiB, MiB or GiB in 0..1GiB (84KiB)", k, val)
			}
			*b = n
		}
	}
	c.cfg, c.arg = &cfg, v
	return nil
}

// parseBytes reads a size of 0..1 GiB: a whole number of bytes, or a number
// of KiB, MiB or GiB ("84KiB", "1.5MiB", "1GiB").
func parseBytes(s string) (int64, error) {
	unit := 1.0
	for suffix, u := range map[string]float64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30} {
		if n, ok := strings.CutSuffix(s, suffix); ok {
			s, unit = n, u
		}
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || !(x >= 0) || x*unit > 1<<30 || unit == 1 && x != float64(int64(x)) {
		return 0, fmt.Errorf("bad size")
	}
	return int64(x * unit), nil
}
