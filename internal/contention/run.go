package contention

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/google/pprof/profile"

	"github.com/innosim/innosim/internal/cmdflag"
	"github.com/innosim/innosim/internal/infile"
	"github.com/innosim/innosim/internal/outfile"
)

// Run is the `innosim profile [-top N] FILE.pprof` command: it reads any CPU
// profile (gzip-compressed protobuf, as go test -cpuprofile and runtime/pprof
// write it), and prints the futex-share and the top contention frames with their
// cumulative and flat shares to stdout; with -json FILE also as JSON
// (reportJSON) to FILE, or to stdout instead of the text when FILE is "-". args excludes the command name. Errors name
// the file; a command line it cannot run is a *cmdflag.UsageError (a bad
// flag: nothing is printed; otherwise the usage is printed), and -h prints
// the usage and returns flag.ErrHelp.
func Run(args []string, stdout, stderr io.Writer) error {
	fs := cmdflag.New("profile", stderr, "innosim profile [-top N] [-json FILE] FILE.pprof",
		"Prints the share of CPU samples in futex or runtime-lock code and the top such frames.")
	top := fs.Int("top", 10, "number of contention frames to list (0 for all)")
	jsonPath := fs.String("json", "", "also write the report to this JSON file; - writes it to stdout instead of the text")
	names, err := fs.ParseInterspersed(args) // flags before or after the file
	if err != nil {
		return err
	}
	switch {
	case *top < 0:
		fs.Usage()
		return cmdflag.Usagef("-top = %d, want ≥ 0 (0 lists every frame)", *top)
	case len(names) != 1:
		fs.Usage()
		return cmdflag.Usagef("want one profile file, got %d arguments", len(names))
	}
	name := names[0]
	jsonOut, err := outfile.NewStdout("-json", *jsonPath, stdout)
	if err != nil {
		return err
	}
	defer jsonOut.Discard()
	if err := jsonOut.CheckInput(name, name); err != nil {
		return err
	}
	f, err := infile.Open(name) // a regular file: a named pipe would block, /dev/zero never end
	if err != nil {
		return err // an *fs.PathError, naming the file
	}
	defer f.Close()
	if f.Size() > maxProfileFile {
		return fmt.Errorf("%s: file larger than %d bytes: %w", name, maxProfileFile, ErrTooLarge)
	}
	p, err := parseBounded(f, name, maxProfileFile, maxProfileBytes)
	if err != nil {
		return err
	}
	if !jsonOut.IsStdout() {
		if err := Report(stdout, name, p, *top); err != nil {
			return err
		}
	}
	return jsonOut.WriteStream(func(w io.Writer) error { return writeJSON(w, name, p, *top) })
}

// reportJSON is what innosim profile -json writes: the profile's name, its
// samples, those in futex or runtime-lock code and their percentage, and
// the top such frames (FrameShare, percentages of all samples).
type reportJSON struct {
	Profile       string      `json:"profile"`
	Samples       int64       `json:"samples"`
	Contended     int64       `json:"contended"`
	FutexSharePct float64     `json:"futex_share_pct"`
	Frames        []frameJSON `json:"frames"`
}

// frameJSON is a FrameShare.
type frameJSON struct {
	Function string  `json:"function"`
	CumPct   float64 `json:"cum_pct"`
	FlatPct  float64 `json:"flat_pct"`
}

// writeJSON writes the report Report prints for p, as reportJSON.
func writeJSON(w io.Writer, name string, p *profile.Profile, top int) error {
	share, err := ShareOf(p, nil)
	if err != nil {
		return fmt.Errorf("profile: %s: %w", name, err)
	}
	frames, err := Top(p, nil, top)
	if err != nil {
		return fmt.Errorf("profile: %s: %w", name, err)
	}
	js := reportJSON{Profile: name, Samples: share.Samples, Contended: share.Contended, FutexSharePct: share.Percent(), Frames: []frameJSON{}}
	for _, f := range frames {
		js.Frames = append(js.Frames, frameJSON{Function: f.Function, CumPct: f.Cum, FlatPct: f.Flat})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(js); err != nil {
		return fmt.Errorf("profile: write JSON: %w", err)
	}
	return nil
}

// Bounds of what Run reads. A CPU profile of a long benchmark is a few MiB
// compressed and some tens uncompressed; beyond these a file is not a profile.
const (
	maxProfileFile  = 64 << 20  // bytes read from the file
	maxProfileBytes = 128 << 20 // bytes after gzip decompression
	maxGzipMembers  = 64        // gzip members (runtime/pprof writes one)
)

// ErrTooLarge is returned by Run for a profile file, or its decompressed
// content, beyond the bounds above.
var ErrTooLarge = errors.New("contention: profile too large")

// parseBounded reads a profile (gzip-compressed or not) from r within
// maxFile bytes, decompressing within maxData bytes, and parses it.
func parseBounded(r io.Reader, name string, maxFile, maxData int) (*profile.Profile, error) {
	data, err := io.ReadAll(io.LimitReader(r, int64(maxFile)+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > maxFile {
		return nil, fmt.Errorf("%s: file larger than %d bytes: %w", name, maxFile, ErrTooLarge)
	}
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		// The gzip trailer's ISIZE is the last member's size modulo 2^32
		// (RFC 1952), so the whole is at least that: a larger one is
		// refused before a byte is decompressed, and it sizes the buffer.
		size := 0
		if len(data) >= 18 {
			size = int(binary.LittleEndian.Uint32(data[len(data)-4:]))
		}
		if size > maxData {
			return nil, fmt.Errorf("%s: %d bytes once decompressed, more than %d: %w", name, size, maxData, ErrTooLarge)
		}
		br := bytes.NewReader(data)
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		// Member by member (RFC 1952 lets a file concatenate them), each
		// counted: a profile is one, and a file of millions of empty
		// members decompresses to nothing, slowly.
		zr.Multistream(false)
		var buf bytes.Buffer
		buf.Grow(size + 1)
		for members := 1; ; members++ {
			if members > maxGzipMembers {
				return nil, fmt.Errorf("%s: more than %d gzip members: %w", name, maxGzipMembers, ErrTooLarge)
			}
			if _, err := buf.ReadFrom(io.LimitReader(zr, int64(maxData-buf.Len())+1)); err != nil {
				return nil, fmt.Errorf("%s: decompress: %w", name, err)
			}
			if buf.Len() > maxData {
				return nil, fmt.Errorf("%s: more than %d bytes once decompressed: %w", name, maxData, ErrTooLarge)
			}
			if err := zr.Reset(br); err == io.EOF {
				break
			} else if err != nil {
				return nil, fmt.Errorf("%s: decompress: %w", name, err)
			}
			zr.Multistream(false) // Reset restores the default
		}
		data = buf.Bytes()
		if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
			// profile.ParseData would decompress it again, without a bound
			return nil, fmt.Errorf("%s: gzip inside gzip, not a profile: %w", name, ErrTooLarge)
		}
	}
	p, err := profile.ParseData(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return p, nil
}

// Report writes the contention report of p (named name) to w: sample count,
// futex-share, and up to top listed frames (0 for all).
func Report(w io.Writer, name string, p *profile.Profile, top int) error {
	share, err := ShareOf(p, nil)
	if err != nil {
		return fmt.Errorf("profile: %s: %w", name, err)
	}
	frames, err := Top(p, nil, top)
	if err != nil {
		return fmt.Errorf("profile: %s: %w", name, err)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "profile: %s\n", name)
	fmt.Fprintf(tw, "futex-share: %s in futex or runtime-lock code\n", share)
	if len(frames) == 0 {
		fmt.Fprintln(tw, "no samples pass through futex or runtime-lock code")
		return flush(tw)
	}
	fmt.Fprintln(tw, "cum%\tflat%\t\tfunction")
	for _, fr := range frames {
		fmt.Fprintf(tw, "%.1f\t%.1f\t\t%s\n", fr.Cum, fr.Flat, fr.Function)
	}
	return flush(tw)
}

func flush(tw *tabwriter.Writer) error {
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("profile: write report: %w", err)
	}
	return nil
}
