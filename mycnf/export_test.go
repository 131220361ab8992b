package mycnf

// KeyRange is a modelled key's range, for the external tests.
type KeyRange struct {
	Name     string
	Min, Max int64
	Bool     bool
}

// KeyRanges returns the range of every modelled key.
func KeyRanges() []KeyRange {
	out := make([]KeyRange, len(keys))
	for i := range keys {
		_, isBool := keys[i].field(&Settings{}).(*bool)
		out[i] = KeyRange{keys[i].name, keys[i].min, keys[i].max, isBool}
	}
	return out
}
