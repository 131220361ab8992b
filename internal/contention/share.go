package contention

import (
	"errors"
	"fmt"
	"sort"

	"github.com/google/pprof/profile"
)

// ErrNoSamples is returned when a profile has no sample type to count.
var ErrNoSamples = errors.New("contention: profile has no sample values")

// Share is the part of a CPU profile spent in futex or runtime-lock code. The zero
// value is an empty profile (Percent 0).
type Share struct {
	Samples   int64 // samples in the profile (each ~10 ms of CPU at the default rate)
	Contended int64 // samples whose stack passes through one of Frames
}

// Percent returns Contended as a percentage of Samples, 0 when there are none.
func (s Share) Percent() float64 {
	if s.Samples == 0 {
		return 0
	}
	return 100 * float64(s.Contended) / float64(s.Samples)
}

// String formats the share as "41.2% of 1234 samples".
func (s Share) String() string {
	return fmt.Sprintf("%.1f%% of %d samples", s.Percent(), s.Samples)
}

// ShareOf returns the contention share of p over the frames in frames (nil means
// Frames()). Samples are weighted by their "samples" value (the count in a Go CPU
// profile), or by the first value when the profile has no such type. A sample
// counts once however many listed frames its stack holds, including frames inlined
// into others.
func ShareOf(p *profile.Profile, frames []Frame) (Share, error) {
	idx, err := sampleIndex(p)
	if err != nil {
		return Share{}, err
	}
	m := newMatcher(orDefault(frames))
	var s Share
	for _, smp := range p.Sample {
		v := smp.Value[idx]
		s.Samples += v
		if stackMatches(smp, m) {
			s.Contended += v
		}
	}
	return s, nil
}

// FrameShare is one function's part of a profile.
type FrameShare struct {
	Function string  // function name as in the profile
	Cum      float64 // percent of samples whose stack passes through Function
	Flat     float64 // percent of samples with Function at the top of the stack
}

// Top returns up to n listed functions (frames; nil means Frames()) found in p,
// most cumulative share first, ties by name. n ≤ 0 means all.
func Top(p *profile.Profile, frames []Frame, n int) ([]FrameShare, error) {
	idx, err := sampleIndex(p)
	if err != nil {
		return nil, err
	}
	m := newMatcher(orDefault(frames))
	var total int64
	cum := map[string]int64{}
	flat := map[string]int64{}
	for _, smp := range p.Sample {
		v := smp.Value[idx]
		total += v
		seen := map[string]bool{}
		for i, loc := range smp.Location {
			// Lines are innermost first: Line[0] of Location[0] is the leaf.
			for j, ln := range loc.Line {
				if ln.Function == nil || !m.match(ln.Function.Name) {
					continue
				}
				name := ln.Function.Name
				if i == 0 && j == 0 {
					flat[name] += v
				}
				if !seen[name] {
					seen[name] = true
					cum[name] += v
				}
			}
		}
	}
	out := make([]FrameShare, 0, len(cum))
	for name, c := range cum {
		out = append(out, FrameShare{Function: name, Cum: pct(c, total), Flat: pct(flat[name], total)})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Cum != out[j].Cum {
			return out[i].Cum > out[j].Cum
		}
		return out[i].Function < out[j].Function
	})
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out, nil
}

func pct(v, total int64) float64 {
	if total == 0 {
		return 0
	}
	return 100 * float64(v) / float64(total)
}

func orDefault(frames []Frame) []Frame {
	if frames == nil {
		return Frames()
	}
	return frames
}

func stackMatches(s *profile.Sample, m matcher) bool {
	for _, loc := range s.Location {
		for _, ln := range loc.Line {
			if ln.Function != nil && m.match(ln.Function.Name) {
				return true
			}
		}
	}
	return false
}

// sampleIndex picks the value to weight samples by: "samples", else the first.
func sampleIndex(p *profile.Profile) (int, error) {
	if p == nil || len(p.SampleType) == 0 {
		return 0, ErrNoSamples
	}
	for i, st := range p.SampleType {
		if st.Type == "samples" {
			return i, nil
		}
	}
	return 0, nil
}
