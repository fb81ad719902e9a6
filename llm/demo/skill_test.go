package demo

import "testing"

func TestTrainedName(t *testing.T) {
	tests := []struct{ offered, want string }{
		{"multiply", "multiply"},
		{"calculator_multiply", "multiply"},
		{"calculator_round_number", "round_number"},
		{"my_converter_convert_weight", "convert_weight"},
		{"send_mail", "send_mail"},
		{"mail", ""},
		{"multiply_all", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := trainedName(tt.offered); got != tt.want {
			t.Errorf("trainedName(%q) = %q, want %q", tt.offered, got, tt.want)
		}
	}
}
