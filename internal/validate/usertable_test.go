package validate

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"unicode"

	"github.com/innosim/innosim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const userCSV = `# name: my point selects
# source: my lab, 2026-11
# bound: 2
workload,cpus,scheduler,costs,threads,published
oltp_point_select,4,cfs,old-kernel,1,30000
oltp_point_select,4,cfs,new-kernel,8,120000
`

func TestParseUserTableReadsSettingsAndCells(t *testing.T) {
	ut, err := ParseUserTable(strings.NewReader(userCSV), "lab.csv")
	require.NoError(t, err)
	assert.Equal(t, "my point selects", ut.Name)
	assert.Equal(t, "my lab, 2026-11", ut.Source)
	assert.Equal(t, 2.0, ut.Bound)
	require.Len(t, ut.Cells, 2)
	assert.Equal(t, 8, ut.Cells[1].Threads)
	assert.Equal(t, "new-kernel", ut.Cells[1].Machine.Costs.Name)
	assert.Equal(t, []float64{30000, 120000}, ut.Published)
}

// A spreadsheet's export starts with a byte-order mark, which made the first
// column "\ufeffworkload"; a setting's key in capitals was ignored.
func TestParseUserTableSkipsABOMAndReadsKeysInAnyCase(t *testing.T) {
	in := "\ufeff" + strings.Replace(userCSV, "# bound: 2", "# Bound: 2", 1)
	ut, err := ParseUserTable(strings.NewReader(in), "lab.csv")
	require.NoError(t, err)
	assert.Equal(t, 2.0, ut.Bound)
	assert.Len(t, ut.Cells, 2)
}

func TestUserTableRunsAsAPredictedTable(t *testing.T) {
	ut, err := ParseUserTable(strings.NewReader(userCSV), "lab.csv")
	require.NoError(t, err)
	tb, err := ut.Run(context.Background(), 1)
	require.NoError(t, err)
	assert.Equal(t, Predicted, tb.Use)
	assert.InDelta(t, math.Log(2), tb.MaxAbsLog, 1e-12)
	require.Len(t, tb.Rows, 2)
	for _, r := range tb.Rows {
		assert.Greater(t, r.Simulated, 0.0, r.Label)
	}
}

func TestParseUserTableRefusesBadInputNamingLineAndField(t *testing.T) {
	head := "cpus,scheduler,costs,workload,threads,published\n"
	for _, c := range []struct{ name, in, want string }{
		{"an empty file", "", "no header"},
		{"a missing column", "cpus,scheduler,costs,workload,threads\n", `no column "published"`},
		{"no rows", head, "no rows"},
		{"cpus out of range", head + "0,cfs,old-kernel,connect,1,5\n", "x.csv:2: cpus = \"0\", want 1..1024"},
		{"threads out of range", head + "4,cfs,old-kernel,connect,10001,5\n", "threads = \"10001\", want 1..10000"},
		{"a published zero", head + "4,cfs,old-kernel,connect,1,0\n", "published = \"0\", want a number in 0.001..1e9 (the workload's unit per second)"},
		// 1e-300 was read, and its ratio to the simulated figure printed with 300 digits
		{"a published figure too small", head + "4,cfs,old-kernel,connect,1,1e-300\n", "published = \"1e-300\", want a number in 0.001..1e9"},
		{"a published figure too large", head + "4,cfs,old-kernel,connect,1,2e9\n", "published = \"2e9\", want a number in 0.001..1e9"},
		{"an unknown scheduler", head + "4,fifo,old-kernel,connect,1,5\n", "scheduler = \"fifo\", want cfs or ts"},
		{"an unknown profile", head + "4,cfs,win95,connect,1,5\n", "costs = \"win95\""},
		{"an unknown workload", head + "4,cfs,old-kernel,tpcc,1,5\n", "workload = \"tpcc\", want one of"},
		{"a bound of 1 or less", "# bound: 1\n" + head + "4,cfs,old-kernel,connect,1,5\n", "x.csv:1: bound \"1\", want a factor > 1"},
		// A column given twice used its last copy without a word.
		{"a column twice", "cpus,scheduler,costs,workload,threads,published,cpus\n4,cfs,old-kernel,connect,1,5,8\n",
			`column "cpus" twice (columns 1 and 7)`},
		// A row that needs a device parsed, and failed only after the
		// other tables had run.
		{"a workload that needs a device", head + "4,cfs,old-kernel,oltp_read_write,1,30000\n",
			"x.csv:2: workload oltp_read_write cannot run on a user table's machine"},
		// each of these was read without a word: the cell simulated and
		// reported twice, the column dropped, the last bound kept
		{"a cell given twice", head + "4,cfs,old-kernel,connect,16,1000\n4,cfs,old-kernel,connect,1,5\n4, cfs ,old-kernel,connect,16,2000\n",
			"x.csv:4: the cell of line 2 again (connect, 4 cpus, cfs, old-kernel, 16 threads)"},
		{"a column validate does not read", "cpus,scheduler,costs,workload,threads,published,notes\n4,cfs,old-kernel,connect,1,5,x\n",
			`header column 7 "notes" is not one validate reads`},
		{"a bound given twice", "# bound: 1.5\n# Bound: 3\n" + head + "4,cfs,old-kernel,connect,1,5\n", "x.csv:2: # bound: given twice (first on line 1)"},
		{"a name given twice", "# name: a\n# name: b\n" + head + "4,cfs,old-kernel,connect,1,5\n", "x.csv:2: # name: given twice"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseUserTable(strings.NewReader(c.in), "x.csv")
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			assert.True(t, errors.Is(err, sim.ErrInvalidConfig), "%v wraps ErrInvalidConfig", err)
		})
	}
}

// A row with too few or too many fields was refused as "record on line 3:
// wrong number of fields", which says neither how many the row has nor how
// many it wants; the count is the header's.
func TestTableReadersNameTheFieldCountTheHeaderWants(t *testing.T) {
	user := "# name: x\ncpus,scheduler,costs,workload,threads,published\n"
	liveHead := "workload,cpus,threads,throughput\n"
	rotHead := "workload,connections,server_cpu_us_per_query,client_cpu_us_per_query,queries_per_event\n"
	for _, c := range []struct {
		name, in, want string
		parse          func(string) error
	}{
		{"a short row of a published table", user + "4,cfs,old-kernel,connect,1,5\n4,cfs\n",
			"x.csv:4: 2 fields, want 6, one for each column of the header (cpus,scheduler,costs,workload,threads,published)", parseUser},
		{"a long row of a published table", user + "4,cfs,old-kernel,connect,1,5,9\n",
			"x.csv:3: 7 fields, want 6, one for each column of the header (cpus,scheduler,costs,workload,threads,published)", parseUser},
		{"a short row of a live table", liveHead + "connect,2,1\n",
			"x.csv:2: 3 fields, want 4, one for each column of the header (workload,cpus,threads,throughput)", parseUser},
		{"a short row of a rotation probe", rotHead + "oltp_read_only,1,20,5,16\noltp_read_only,4\n",
			"x.csv:3: 2 fields, want 5, one for each column of the header (workload,connections,server_cpu_us_per_query,client_cpu_us_per_query,queries_per_event)",
			func(in string) error { _, err := ParseRotation(strings.NewReader(in), "x.csv"); return err }},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.parse(c.in)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			assert.ErrorIs(t, err, sim.ErrInvalidConfig)
		})
	}
}

func parseUser(in string) error {
	_, err := ParseUserTable(strings.NewReader(in), "x.csv")
	return err
}

func TestParseUserTableBoundsItsSize(t *testing.T) {
	big := strings.Repeat("#", 1<<20+10)
	_, err := ParseUserTable(strings.NewReader(big), "big.csv")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "larger than 1 MiB")
}

// FuzzParseUserTable: any input is a table or an error, never a panic, and a
// table it accepts has one published figure > 0 per cell, each cell valid.
func FuzzParseUserTable(f *testing.F) {
	f.Add(userCSV)
	f.Add("cpus,scheduler,costs,workload,threads,published\n4,ts,new-kernel,connect,8,1e5\n")
	f.Add("# bound: 1e400\ncpus\n")
	f.Fuzz(func(t *testing.T, in string) {
		ut, err := ParseUserTable(strings.NewReader(in), "f.csv")
		if err != nil {
			return
		}
		require.Len(t, ut.Published, len(ut.Cells))
		require.Greater(t, ut.Bound, 1.0)
		for i, c := range ut.Cells {
			require.Greater(t, ut.Published[i], 0.0)
			require.GreaterOrEqual(t, c.Threads, 1)
			require.LessOrEqual(t, c.Threads, 10000)
			_, err := sim.LookupWorkload(c.Workload)
			require.NoError(t, err)
		}
	})
}

// A control character in a shared table is refused with its line, and never
// reaches the terminal: a "# name:" holding escape sequences cleared the
// screen and set the window title through validate -table.
func TestParseUserTableRefusesControlCharacters(t *testing.T) {
	head := "cpus,scheduler,costs,workload,threads,published\n"
	row := "4,cfs,old-kernel,connect,1,5\n"
	for _, c := range []struct{ name, in, want string }{
		{"a name that sets the window title", "# name: \x1b]0;pwned\x07lab\n" + head + row, "x.csv:1: control character U+001B"},
		{"a source that clears the screen", "# source: \x1b[2J\n" + head + row, "x.csv:1: control character U+001B"},
		{"a bell in a cell", head + "4,cfs,old-kernel,connect\a,1,5\n", "x.csv:2: control character U+0007"},
		{"a C1 control in a header", "cpus,scheduler,costs,workload,threads,published,\u009b2J\n" + row, "x.csv:1: control character U+009B"},
		{"a name that is not UTF-8", "# name: lab\xff\n" + head + row, `x.csv:1: # name: "lab\xff" is not UTF-8 text`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseUserTable(strings.NewReader(c.in), "x.csv")
			require.ErrorIs(t, err, sim.ErrInvalidConfig)
			assert.Contains(t, err.Error(), c.want)
			assert.False(t, strings.ContainsFunc(err.Error(), unicode.IsControl), "the error is printable: %q", err.Error())
		})
	}
	ut, err := ParseUserTable(strings.NewReader("# name: lab\tA, run 2\r\n"+head+row), "x.csv")
	require.NoError(t, err, "tabs and CRLF line ends are text")
	assert.Equal(t, "lab\tA, run 2", ut.Name)
}
