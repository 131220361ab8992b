package cmdflag

import (
	"fmt"
	"slices"
	"strings"
)

// KeyValues reads one key and its values, "key=v1,v2", as run's -vary and
// live's -setting take them; flagName (as "-vary") names the flag in its
// errors, which are *UsageError. It refuses s without "=", with an empty key
// or no values, an empty value among the values ("k=a,,b", "k=a,": a bare
// key would run as a value), and a value given twice (naming its
// positions): each would run a point, or a whole row, it does not mean.
func KeyValues(flagName, s string) (key string, values []string, err error) {
	key, v, ok := strings.Cut(s, "=")
	if !ok || key == "" || v == "" {
		return "", nil, Usagef("%s %q: want key=v1,v2", flagName, s)
	}
	values = strings.Split(v, ",")
	if i := slices.IndexFunc(values, func(v string) bool { return strings.TrimSpace(v) == "" }); i >= 0 {
		return "", nil, Usagef("%s %s: value %d of %d is empty: want key=v1,v2 with no empty value", flagName, key, i+1, len(values))
	}
	seen := make(map[string]int, len(values))
	for j, v := range values {
		if i, dup := seen[v]; dup {
			return "", nil, Usagef("%s %s: value %q given twice (positions %d and %d): want each value once", flagName, key, v, i+1, j+1)
		}
		seen[v] = j
	}
	return key, values, nil
}

// Pair is one key=value of Pairs.
type Pair struct{ Key, Value string }

// Pairs reads comma-separated key=value pairs ("units=1,read=5ms"), as run's
// -device and -client take them, in their order, each key one of keys. It
// refuses an item without "=", a key not in keys and a key given twice (the
// last would replace the first), saying what is wanted. Its errors are plain:
// a flag value's Set returns them, and the flag package names the flag.
func Pairs(s string, keys []string) ([]Pair, error) {
	var out []Pair
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return nil, fmt.Errorf("%q: want key=value (%s)", kv, strings.Join(keys, ", "))
		}
		if !slices.Contains(keys, k) {
			return nil, fmt.Errorf("key %q: want one of %s", k, strings.Join(keys, ", "))
		}
		if slices.ContainsFunc(out, func(p Pair) bool { return p.Key == k }) {
			return nil, fmt.Errorf("key %q given twice: want each key once (the last would replace the first)", k)
		}
		out = append(out, Pair{k, v})
	}
	return out, nil
}
