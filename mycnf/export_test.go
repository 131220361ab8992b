package mycnf

// KeyRange is a modelled key's range, for the external tests.
type KeyRange struct {
	Name     string
	Min, Max int64
	Bool     bool
	Enum     []string // the values of a string key
}

// KeyRanges returns the range of every modelled key.
func KeyRanges() []KeyRange {
	out := make([]KeyRange, len(keys))
	for i := range keys {
		_, isBool := keys[i].field(&Settings{}).(*bool)
		out[i] = KeyRange{keys[i].name, keys[i].min, keys[i].max, isBool, keys[i].enum}
	}
	return out
}
