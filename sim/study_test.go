package sim

import (
	"context"
	"testing"
)

func TestStudyQuick(t *testing.T) {
	for _, s := range Studies() {
		rep, err := s.Run(context.Background(), Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, tb := range rep.Tables {
			tb.WriteText(testWriter{t})
		}
		t.Log(rep.Notes)
		t.Log(rep.Verdict())
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }
