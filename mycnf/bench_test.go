package mycnf

import (
	"bytes"
	"os"
	"testing"
)

// BenchmarkParse measures reading an option file: file=study_d is the 47-option
// configuration of reference study D; stage=parse reads it, stage=settings
// also builds the typed view.
func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile("testdata/study_d_my.cnf")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("file=study_d/stage=parse", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Parse(bytes.NewReader(data), "my.cnf"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("file=study_d/stage=settings", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			f, err := Parse(bytes.NewReader(data), "my.cnf")
			if err != nil {
				b.Fatal(err)
			}
			if _, err := f.Settings(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
