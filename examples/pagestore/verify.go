package main

import (
	"errors"
	"fmt"
	"os"
)

// Verify reads every page of the data file at path, which must hold pages
// pages, and checks each one's checksum and page number. It calls check, if
// not nil, with each good page's payload and version, and returns the
// versions by page with every problem found, joined (at most 20 reported).
func Verify(path string, pages int64, check func(n int64, payload []byte, version uint64) error) ([]uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, err
	} else if fi.Size() != pages*PageSize {
		return nil, fmt.Errorf("pagestore: %s holds %d bytes, want %d pages of %d", path, fi.Size(), pages, PageSize)
	}
	versions := make([]uint64, pages)
	buf := make([]byte, ExtentPages*PageSize)
	var errs []error
	for first := int64(0); first < pages; first += ExtentPages {
		n := min(ExtentPages, pages-first)
		if _, err := f.ReadAt(buf[:n*PageSize], first*PageSize); err != nil {
			return nil, fmt.Errorf("pagestore: verify: %w", err)
		}
		for i := range n {
			p := buf[i*PageSize : (i+1)*PageSize]
			err := checkPage(p, first+i)
			if err == nil {
				versions[first+i] = pageVersion(p)
				if check != nil {
					err = check(first+i, p[offPayload:offChecksum], pageVersion(p))
				}
			}
			if err != nil && len(errs) < 20 {
				errs = append(errs, err)
			}
		}
	}
	return versions, errors.Join(errs...)
}
