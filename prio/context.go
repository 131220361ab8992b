package prio

import "context"

// hintKey is the context key type for a Hint; unexported so no other package can
// collide with it.
type hintKey struct{}

// WithHint returns a copy of ctx carrying hint h, for FromContext to read back
// further down the call chain (an admission queue, an AIO submission).
func WithHint(ctx context.Context, h Hint) context.Context {
	return context.WithValue(ctx, hintKey{}, h)
}

// FromContext returns the hint attached to ctx by WithHint and true, or Normal and
// false when ctx carries none (so the zero-value behaviour is "no preference").
func FromContext(ctx context.Context) (Hint, bool) {
	h, ok := ctx.Value(hintKey{}).(Hint)
	if !ok {
		return Normal, false
	}
	return h, true
}
