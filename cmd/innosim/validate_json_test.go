package main

import (
	"context"
	"encoding/json"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/internal/validate"
)

// validate had no --json, the one command of tables without it. Its JSON
// has snake_case keys, and every figure is a number or null.
func TestValidateWritesJSON(t *testing.T) {
	code, stdout, stderr := runCmdContext(validate.Quick(context.Background()),
		"validate", "tables", "-table", "testdata/validate_user.csv", "--json", "-")
	require.Contains(t, []int{0, 1}, code, stderr)
	var js validateJSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &js), stdout)
	require.Len(t, js.Runs, 1)
	assert.Equal(t, uint64(1), js.Runs[0].Seed)
	require.NotEmpty(t, js.Runs[0].Tables)
	tb := js.Runs[0].Tables[0]
	assert.NotEmpty(t, tb.Rows)
	assert.NotNil(t, tb.Rows[0].Simulated)
	assert.Equal(t, code == 1, js.Missed)

	var raw any
	require.NoError(t, json.Unmarshal([]byte(stdout), &raw))
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				assert.Regexp(t, regexp.MustCompile(`^[a-z][a-z0-9_]*$`), k)
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(raw)
	assert.NotContains(t, stdout, "== ", "no text tables with --json -")
}
