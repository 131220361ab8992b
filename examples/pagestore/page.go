package main

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// Page layout, in bytes:
//
//	0       8         16                          PageSize-4   PageSize
//	| page  | version |  payload (PayloadSize)     | CRC-32C   |
//
// The page number and the checksum let a reader tell a misplaced or torn page
// from a good one, as FIL_PAGE_OFFSET and the page trailer do in InnoDB. The
// version counts the page's Updates; InnoDB keeps the page's newest LSN there.
const (
	offPage     = 0
	offVersion  = 8
	offPayload  = 16
	offChecksum = PageSize - 4
	// PayloadSize is the number of bytes of a page a client may change.
	PayloadSize = offChecksum - offPayload
)

// castagnoli is CRC-32C, innodb_checksum_algorithm=crc32 (MySQL 5.6+).
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// pageVersion returns the version in the header of page buffer p.
func pageVersion(p []byte) uint64 { return binary.LittleEndian.Uint64(p[offVersion:]) }

// setHeader writes page number n and version v into the header of p.
func setHeader(p []byte, n int64, v uint64) {
	binary.LittleEndian.PutUint64(p[offPage:], uint64(n))
	binary.LittleEndian.PutUint64(p[offVersion:], v)
}

// seal computes p's checksum into its trailer, just before the page is written.
func seal(p []byte) {
	binary.LittleEndian.PutUint32(p[offChecksum:], crc32.Checksum(p[:offChecksum], castagnoli))
}

// checkPage reports whether p is a sealed image of page n: its checksum
// matches and its header names n.
func checkPage(p []byte, n int64) error {
	want := binary.LittleEndian.Uint32(p[offChecksum:])
	if got := crc32.Checksum(p[:offChecksum], castagnoli); got != want {
		return fmt.Errorf("pagestore: page %d: checksum %#08x, stored %#08x (torn or corrupt)", n, got, want)
	}
	if got := int64(binary.LittleEndian.Uint64(p[offPage:])); got != n {
		return fmt.Errorf("pagestore: page %d: header names page %d (misplaced)", n, got)
	}
	return nil
}
