package tools

import "testing"

func TestJSONKeepsMarkup(t *testing.T) {
	got, err := JSON(map[string]string{"error": "the <tool_call> & more"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"error":"the <tool_call> & more"}`; got != want {
		t.Fatalf("JSON() = %s, want %s", got, want)
	}
	if _, err := JSON(func() {}); err == nil {
		t.Fatal("a value JSON cannot hold encoded without error")
	}
}
