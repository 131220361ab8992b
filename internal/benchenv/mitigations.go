package benchenv

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// vulnDir is where Linux (4.15 and later) reports, one file per known CPU
// vulnerability, whether this CPU is affected and how the kernel mitigates it.
const vulnDir = "sys/devices/system/cpu/vulnerabilities"

// mitigations returns the KeyMitigations summary followed by one VulnPrefix key per
// vulnerability file, sorted by name. Each file's text starts with "Not affected",
// "Vulnerable" or "Mitigation:" (Documentation/ABI/testing/sysfs-devices-system-cpu);
// the summary counts each kind, and "other" any text outside the three. With no
// readable directory it returns only the summary, as Unknown.
func mitigations(fsys fs.FS) []Line {
	entries, err := fs.ReadDir(fsys, vulnDir)
	if err != nil {
		return []Line{{KeyMitigations, Unknown}}
	}
	var (
		lines                                    []Line
		mitigated, vulnerable, unaffected, other int
	)
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := fs.ReadFile(fsys, path.Join(vulnDir, e.Name()))
		if err != nil {
			lines = append(lines, Line{VulnPrefix + e.Name(), Unknown})
			other++
			continue
		}
		text := orUnknown(string(data))
		switch {
		case strings.HasPrefix(text, "Not affected"):
			unaffected++
		case strings.HasPrefix(text, "Vulnerable"):
			vulnerable++
		case strings.HasPrefix(text, "Mitigation"):
			mitigated++
		default:
			other++
		}
		lines = append(lines, Line{VulnPrefix + e.Name(), text})
	}
	if len(lines) == 0 {
		return []Line{{KeyMitigations, Unknown}}
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i].Key < lines[j].Key })
	summary := fmt.Sprintf("%d mitigated, %d vulnerable, %d not affected", mitigated, vulnerable, unaffected)
	if other > 0 {
		summary += fmt.Sprintf(", %d other", other)
	}
	return append([]Line{{KeyMitigations, summary}}, lines...)
}
