package mycnf

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParseBool(t *testing.T) {
	tests := []struct {
		in      string
		want    bool
		wantErr bool
	}{
		{"ON", true, false}, {"on", true, false}, {"True", true, false}, {"1", true, false},
		{"OFF", false, false}, {"off", false, false}, {"FALSE", false, false}, {"0", false, false},
		{"yes", false, true}, {"2", false, true}, {"", false, true}, {" on", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseBool(tt.in)
			if tt.wantErr {
				assert.ErrorIs(t, err, ErrInvalidConfig)
				assert.ErrorContains(t, err, "want ON, OFF, TRUE, FALSE, 1 or 0")
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseInt(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    int64
		wantErr string
	}{
		{"plain", "6", 6, ""},
		{"signed", "-3", -3, ""},
		{"plus sign", "+3", 3, ""},
		{"kilo", "16K", 16 << 10, ""},
		{"kilo lower case", "16k", 16 << 10, ""},
		{"mega", "8M", 8 << 20, ""},
		{"giga", "4G", 4 << 30, ""},
		{"tera", "1T", 1 << 40, ""},
		{"peta", "2p", 2 << 50, ""},
		{"exa", "7E", 7 << 60, ""},
		{"negative with suffix", "-1K", -1024, ""},
		{"largest", "9223372036854775807", math.MaxInt64, ""},
		{"suffix overflow", "8E", 0, "overflows"},
		{"digits overflow", "9223372036854775808", 0, "overflows"},
		{"empty", "", 0, "not an integer"},
		{"bare suffix", "K", 0, "not an integer"},
		{"unknown suffix", "12X", 0, "not an integer"},
		{"two suffixes", "1KK", 0, "not an integer"},
		{"a fraction", "1.5", 0, "not an integer"},
		{"a space", "1 K", 0, "not an integer"},
		{"hex", "0x10", 0, "not an integer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseInt(tt.in)
			if tt.wantErr != "" {
				assert.ErrorIs(t, err, ErrInvalidConfig)
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
