package mycnf

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An error message quotes the control bytes of a hostile file instead of
// echoing them to the terminal that prints it (an ESC starts a terminal escape
// sequence; a CR rewrites the line).
func TestErrorsQuoteControlBytes(t *testing.T) {
	tests := []struct {
		name, file string
		want       string
	}{
		{"text after a group header", "[mysqld] \x1b[2J\n", `text after group header [mysqld]: "\x1b[2J"`},
		{"a group name", "[my\rsqld] x\n", `text after group header ["my\rsqld"]: x`},
		{"an unknown directive", "!inc\x1blude x\n", `unknown directive "!inc\x1blude"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tt.file), "my.cnf")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.NotContains(t, err.Error(), "\x1b")
			assert.NotContains(t, err.Error(), "\r")
		})
	}
	t.Run("a missing include", func(t *testing.T) {
		fsys := fstest.MapFS{"my.cnf": {Data: []byte("!include ev\x1bil.cnf\n")}}
		_, err := ParseFS(fsys, "my.cnf")
		require.Error(t, err)
		assert.Contains(t, err.Error(), `"ev\x1bil.cnf"`)
		assert.NotContains(t, err.Error(), "\x1b")
	})
}
