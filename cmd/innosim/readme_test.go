package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readDocs returns README.md and the command pages (docs/cmd/*.md) of the
// repository at root, one after the other: the tests below hold the commands
// and samples of both.
func readDocs(t *testing.T, root string) []byte {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(root, "docs", "cmd", "*.md"))
	require.NoError(t, err)
	require.NotEmpty(t, pages)
	var text []byte
	for _, p := range append([]string{filepath.Join(root, "README.md")}, pages...) {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		text = append(append(text, b...), '\n')
	}
	return text
}

// Every file a README command reads (--cnf, --table, --costs) is in the
// repository: the commands used to read ../shared/reference/*.cnf, which a
// clone of the module does not have.
func TestREADMECommandsReadFilesOfTheRepository(t *testing.T) {
	root := filepath.Join("..", "..")
	text := readDocs(t, root)
	// outputs the commands write themselves (live.csv, costs.profile) are not inputs
	written := map[string]bool{}
	for _, m := range regexp.MustCompile(`--(?:csv|out|json|plot) (\S+)`).FindAllStringSubmatch(string(text), -1) {
		written[m[1]] = true
	}
	inputs := regexp.MustCompile(`--(?:cnf|table|costs) (\S+)`).FindAllStringSubmatch(string(text), -1)
	require.NotEmpty(t, inputs)
	for _, m := range inputs {
		path := strings.Trim(m[1], "`")
		if written[path] || strings.HasSuffix(path, "FILE.csv") || path == "FILE" {
			continue
		}
		clean := filepath.Clean(path)
		assert.False(t, filepath.IsAbs(clean) || strings.HasPrefix(clean, ".."), "%s is outside the repository", path)
		assert.FileExists(t, filepath.Join(root, clean))
	}
}

// Every sample of run's output in the README is what the command above it
// prints: the oltp_insert --vary aio sample had lost the I/O table that run
// prints after the throughput table.
func TestREADMERunSamplesAreWhatRunPrints(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("simulates 0.5 s of 96 cpus per cell, several times")
	}
	text := readDocs(t, filepath.Join("..", ".."))
	// a command block of one run, then the block of its output
	samples := regexp.MustCompile("(?s)```sh\n(go run ./cmd/innosim run [^`]*?)\n```\n\n```\n(.*?)```").FindAllStringSubmatch(string(text), -1)
	require.NotEmpty(t, samples)
	t.Chdir(filepath.Join("..", "..")) // the commands' paths are the repository's
	for _, m := range samples {
		args := strings.Fields(strings.ReplaceAll(m[1], "\\\n", " "))[3:] // after "go run ./cmd/innosim"
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, out, stderr := runCmd(args...)
			require.Equal(t, 0, code, stderr)
			assert.Equal(t, m[2], out)
		})
	}
}

// Every file a README command writes in the repository's root (--csv,
// --out, --json, --plot, -cpuprofile, "> file") is one .gitignore covers:
// run ... --csv out.csv --plot out.svg left two files for git status to
// show, and a careless git add -A to commit.
func TestREADMEOutputsAreIgnored(t *testing.T) {
	root := filepath.Join("..", "..")
	text := readDocs(t, root)
	ignore, err := os.ReadFile(filepath.Join(root, ".gitignore"))
	require.NoError(t, err)
	var patterns []string
	for _, l := range strings.Split(string(ignore), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			patterns = append(patterns, l)
		}
	}
	ignored := func(path string) bool {
		for _, p := range patterns {
			anchored := strings.HasPrefix(p, "/")
			if ok, _ := filepath.Match(strings.TrimPrefix(p, "/"), path); ok && (anchored || !strings.Contains(path, "/")) {
				return true
			}
		}
		return false
	}
	var written []string
	for _, m := range regexp.MustCompile("(?m)(?:--(?:csv|out|json|plot)|-cpuprofile|>) ([^\\s`;]+)").FindAllStringSubmatch(string(text), -1) {
		path := m[1]
		if path == "-" || path == "FILE" || strings.Contains(path, "/") || strings.ToUpper(path) == path {
			continue // stdout, a placeholder, or another directory
		}
		written = append(written, path)
	}
	require.NotEmpty(t, written)
	for _, path := range written {
		assert.True(t, ignored(path), "%s, which a README command writes in the root, is not in .gitignore", path)
	}
}

// README had two "## Embedding" sections: every heading of the README and
// of a command's page is there once.
func TestDocsHaveEachHeadingOnce(t *testing.T) {
	root := filepath.Join("..", "..")
	pages, err := filepath.Glob(filepath.Join(root, "docs", "cmd", "*.md"))
	require.NoError(t, err)
	for _, p := range append([]string{filepath.Join(root, "README.md")}, pages...) {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		seen := map[string]bool{}
		inCode := false
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "```") {
				inCode = !inCode
			}
			if inCode || !strings.HasPrefix(line, "#") {
				continue
			}
			assert.False(t, seen[line], "%s: %q twice", p, line)
			seen[line] = true
		}
	}
}

// compare's page ran every benchmark ten times (hours) between a git stash
// and a pop that, with nothing stashed, restores an older stash. Its recipe
// names benchmarks the root package has and sets nothing aside with stash.
func TestCompareRecipeRunsAsWritten(t *testing.T) {
	root := filepath.Join("..", "..")
	b, err := os.ReadFile(filepath.Join(root, "docs", "cmd", "compare.md"))
	require.NoError(t, err)
	recipe := string(b)[:strings.Index(string(b), "\n```\n")]
	assert.NotContains(t, recipe, "git stash")
	benches, err := filepath.Glob(filepath.Join(root, "bench_*_test.go"))
	require.NoError(t, err)
	var names []string
	for _, f := range benches {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range regexp.MustCompile(`(?m)^func Benchmark(\w+)\(`).FindAllStringSubmatch(string(src), -1) {
			names = append(names, m[1])
		}
	}
	ms := regexp.MustCompile(`-bench (\S+)`).FindAllStringSubmatch(recipe, -1)
	require.NotEmpty(t, ms)
	for _, m := range ms {
		assert.NotEqual(t, ".", m[1], "every benchmark")
		assert.Contains(t, names, m[1])
	}
	assert.Regexp(t, `-count ([6-9]|\d\d)`, recipe, "compare judges six runs a side or more")
}
