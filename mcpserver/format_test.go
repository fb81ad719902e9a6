package mcpserver

import (
	"math"
	"testing"
)

func TestFormatNumber(t *testing.T) {
	tests := []struct {
		x      float64
		digits int
		want   string
	}{
		{42, 12, "42"},
		{0.1 + 0.2, 12, "0.3"},
		{1.0 / 3, 12, "0.333333333333"},
		{1.0 / 3, 7, "0.3333333"},
		{123456789012, 12, "123456789012"},
		{1234567, 12, "1234567"},
		{-2.5, 12, "-2.5"},
		{math.Copysign(0, -1), 12, "0"},
		{1e21, 12, "1e+21"},
		{0.0000001, 12, "1e-07"},
		{98.60000000000001, 7, "98.6"},
	}
	for _, tt := range tests {
		if got := formatNumber(tt.x, tt.digits); got != tt.want {
			t.Errorf("formatNumber(%v, %d) = %q, want %q", tt.x, tt.digits, got, tt.want)
		}
	}
}
