package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/innosim/innosim/internal/cmdflag"
	"github.com/innosim/innosim/internal/report"
	"github.com/innosim/innosim/sim"
)

// deviceFlag is run's -device: "units=8,read=5ms,write=5ms,fsync=5ms,dist=fixed"
// (every key optional but units; read, write and fsync default to 5 ms, dist
// to uniform). Empty: no device (the AIO handlers' reads take the cost
// profile's io_service, and workloads that wait for I/O are refused).
// given holds the keys the flag gave, so that run can refuse a service time
// the workload never waits for; arg is the argument as given.
type deviceFlag struct {
	cfg   *sim.DeviceConfig
	given map[string]bool
	arg   string
}

// String returns the device as given, or "" for none.
func (d *deviceFlag) String() string {
	if d.cfg == nil {
		return ""
	}
	c := d.cfg
	return fmt.Sprintf("units=%d,read=%v,write=%v,fsync=%v,dist=%s", c.Units, c.Read, c.Write, c.Fsync, c.Dist)
}

// Set parses key=value pairs; errors name the key and its allowed values.
func (d *deviceFlag) Set(v string) error {
	c := sim.DeviceConfig{Read: 5 * time.Millisecond, Write: 5 * time.Millisecond, Fsync: 5 * time.Millisecond}
	pairs, err := cmdflag.Pairs(v, []string{"units", "read", "write", "fsync", "dist"})
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, p := range pairs {
		k, val := p.Key, p.Value
		seen[k] = true
		switch k {
		case "units":
			c.Units, err = strconv.Atoi(val)
			if err != nil || c.Units < 1 || c.Units > 1024 {
				return fmt.Errorf("units = %q: want 1..1024", val)
			}
		case "read", "write", "fsync":
			dur, err := time.ParseDuration(val)
			if err != nil || dur < 1 || dur > 10*time.Second {
				return fmt.Errorf("%s = %q: want a duration 1ns..10s", k, val)
			}
			*map[string]*time.Duration{"read": &c.Read, "write": &c.Write, "fsync": &c.Fsync}[k] = dur
		case "dist":
			switch val {
			case "uniform":
				c.Dist = sim.ServiceUniform
			case "fixed":
				c.Dist = sim.ServiceFixed
			case "exponential":
				c.Dist = sim.ServiceExponential
			default:
				return fmt.Errorf("dist = %q: want uniform, fixed or exponential", val)
			}
		}
	}
	if c.Units == 0 {
		return fmt.Errorf("units is required (1..1024)")
	}
	d.cfg, d.given, d.arg = &c, seen, v
	return nil
}

// anyIO reports whether any cell did I/O (on a device or at the cost
// profile's IOService).
func anyIO(res []sim.Result) bool {
	for _, r := range res {
		if r.Reads+r.Writes+r.Fsyncs > 0 {
			return true
		}
	}
	return false
}

// ioTable is run's I/O table: reads/s, writes/s and fsyncs/s of each cell as
// "R/W/F", in the layout of the throughput table (rows rows, each led by the
// cells label(i) returns under lead, the header's first columns; a column per
// threads; res holds rows × len(threads) results, row by row). A cell not
// steady prints not steady, as in the throughput table.
func ioTable(workload string, lead []string, rows int, threads []int, res []sim.Result, label func(i int) []any) report.Table {
	t := report.Table{Title: workload + " I/O by client threads, each cell reads/s / writes/s / fsyncs/s",
		Header: append([]string(nil), lead...)}
	for _, th := range threads {
		t.Header = append(t.Header, "t"+strconv.Itoa(th))
	}
	for i := range rows {
		row := label(i)
		for j := range threads {
			x := res[i*len(threads)+j]
			if x.NotSteady {
				row = append(row, notSteady) // no figure, as in the throughput table
				continue
			}
			r, w, f := x.IORates()
			row = append(row, fmt.Sprintf("%.0f/%.0f/%.0f", r, w, f))
		}
		t.AddRow(row...)
	}
	return t
}
