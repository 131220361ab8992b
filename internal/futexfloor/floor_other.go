//go:build !linux || !cgo

package futexfloor

// Supported reports whether this build can run the floor: Linux with cgo.
func Supported() bool { return false }

// Pool is unavailable in this build; Start returns ErrUnsupported.
type Pool struct{}

// Start checks its arguments as on Linux, then returns ErrUnsupported.
func Start(submitters, handlers int) (*Pool, error) {
	if err := checkStart(submitters, handlers); err != nil {
		return nil, err
	}
	return nil, ErrUnsupported
}

// Run returns ErrUnsupported.
func (p *Pool) Run(ops int) (Result, error) { return Result{}, ErrUnsupported }

// Close does nothing.
func (p *Pool) Close() error { return nil }
