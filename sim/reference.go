package sim

import (
	"bytes"
	"embed"
	"encoding/csv"
	"fmt"
	"strconv"
)

// The published data of the studies, copied unchanged from the project's
// shared/reference directory (each file's first line names it), embedded so that
// reproduce needs no file and works from any directory.
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
		return nil, nil, fmt.Errorf("sim: reference %s: %w", name, err)
	}
	if len(recs) < 2 {
		return nil, nil, fmt.Errorf("sim: reference %s: no rows", name)
	}
	return recs[0], recs[1:], nil
}

func atof(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		panic("sim: embedded reference data: " + err.Error()) // fixed data, checked by tests
	}
	return v
}
