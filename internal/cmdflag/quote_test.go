package cmdflag

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestQuotePathQuotesOnlyWhatATerminalWouldObey(t *testing.T) {
	assert.Equal(t, "out dir/r.csv", QuotePath("out dir/r.csv"))
	assert.Equal(t, "résumé.csv", QuotePath("résumé.csv"))
	assert.Equal(t, `"\x1b]0;owned\a.csv"`, QuotePath("\x1b]0;owned\a.csv"))
	assert.Equal(t, `"a\nb"`, QuotePath("a\nb"))
	assert.Equal(t, `"\xff.csv"`, QuotePath("\xff.csv"))
}

func TestTerminalSafeEscapesControlsButTheLayout(t *testing.T) {
	assert.Equal(t, "line one\n\tline two", TerminalSafe("line one\n\tline two"))
	assert.Equal(t, `open \x1b[2J.csv: no such file`, TerminalSafe("open \x1b[2J.csv: no such file"))
	assert.Equal(t, `a\rb\u0085c\xffd �`, TerminalSafe("a\rb\u0085c\xffd \uFFFD"))
}

func TestSuggestNamesTheNearest(t *testing.T) {
	names := []string{"threads", "cpus", "workload", "measure", "json"}
	assert.Equal(t, "threads", Suggest("thread", names))
	assert.Equal(t, "workload", Suggest("wrokload", names))
	assert.Equal(t, "cpus", Suggest("cpu", names))
	assert.Equal(t, "", Suggest("bogus", names))
	assert.Equal(t, "", Suggest("x", names))
}
