package llm_test

import (
	"errors"
	"fmt"

	"github.com/toolscope/toolscope/llm"
)

// A backend says what went wrong and what would help apart, and each front
// end words the fix in its own terms: the terminal as a flag, the page as
// the control it names.
func ExampleFix_Text() {
	err := fmt.Errorf("round 1: %w", &llm.Error{
		Op:      "prepare",
		Problem: `model "qwen3:4b" is not pulled`,
		Fix:     &llm.Fix{Do: "run 'ollama pull qwen3:4b'", Setting: llm.SettingBackend, Value: "demo"},
	})

	var backendErr *llm.Error
	if errors.As(err, &backendErr) {
		asFlag := func(s llm.Setting, value string) string { return fmt.Sprintf("run with --%s %s", s, value) }
		fmt.Println(backendErr.Problem)
		fmt.Println(backendErr.Fix.Text(asFlag))
		fmt.Println(backendErr.Fix)
	}
	// Output:
	// model "qwen3:4b" is not pulled
	// run 'ollama pull qwen3:4b', or run with --backend demo
	// run 'ollama pull qwen3:4b', or set backend to demo
}
