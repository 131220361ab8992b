package study

import (
	"bytes"
	"embed"
	"encoding/csv"
	"fmt"
	"strconv"

	"github.com/innosim/innosim/mycnf"
)

// The published data of the studies, each file's first line naming its source,
// and the studies' option files, embedded so that reproduce needs no file and
// works from any directory.
//
//go:embed testdata/study_a_priority_ratio.csv testdata/study_c_connect_qps.csv testdata/study_d_aio_wake.csv testdata/study_a_my.cnf testdata/study_d_my.cnf
var reference embed.FS

// refTable reads an embedded CSV, skipping # comment lines; it returns the header
// and the rows.
func refTable(name string) ([]string, [][]string, error) {
	b, err := reference.ReadFile("testdata/" + name)
	if err != nil {
		return nil, nil, err
	}
	r := csv.NewReader(bytes.NewReader(b))
	r.Comment = '#'
	recs, err := r.ReadAll()
	if err != nil {
		return nil, nil, fmt.Errorf("study: reference %s: %w", name, err)
	}
	if len(recs) < 2 {
		return nil, nil, fmt.Errorf("study: reference %s: no rows", name)
	}
	return recs[0], recs[1:], nil
}

func atof(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		panic("study: embedded reference data: " + err.Error()) // fixed data, checked by tests
	}
	return v
}

// studySettings parses an embedded study option file; the files are fixed, so
// an error is a bug caught by the tests.
func studySettings(name string) (mycnf.Settings, error) {
	b, err := reference.ReadFile("testdata/" + name)
	if err != nil {
		return mycnf.Settings{}, err
	}
	f, err := mycnf.Parse(bytes.NewReader(b), name)
	if err != nil {
		return mycnf.Settings{}, fmt.Errorf("study: %w", err)
	}
	s, err := f.Settings()
	if err != nil {
		return mycnf.Settings{}, fmt.Errorf("study: %w", err)
	}
	return s, nil
}
