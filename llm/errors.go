package llm

// Error is a backend failure a person can act on. What went wrong and what
// to do about it are kept apart, as *fs.PathError keeps its fields apart,
// so that each front end words the fix for its own user: the terminal as a
// flag, the page as the control it names. Backends write no front end's
// syntax into Problem or Fix.
type Error struct {
	// Op is the backend call that failed: "check", "prepare" or "stream"
	// (or "pull", Ollama's download of a model).
	Op string
	// Problem says what happened, in words, details included.
	Problem string
	// Fix is what would help; nil when the backend knows no remedy.
	Fix *Fix
	// Err is the cause, reachable with errors.Is and errors.As.
	Err error
}

// Error reads as one sentence for logs: the problem, then the fix.
func (e *Error) Error() string {
	if e.Fix == nil {
		return e.Problem
	}
	return e.Problem + ": " + e.Fix.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Setting names a toolscope setting that a Fix recommends. Front ends map
// it to their own control: a flag in the terminal, a field on the page.
type Setting string

// Settings a Fix can name.
const (
	SettingBackend Setting = "backend"
	SettingModel   Setting = "model"
	SettingMode    Setting = "mode"
	SettingThink   Setting = "think"
)

// Fix is what a person can do about an Error: a step outside toolscope, a
// toolscope setting to change, or both, either one being enough.
type Fix struct {
	// Do is a step outside toolscope, in words, such as "run 'ollama pull
	// qwen3:4b'".
	Do string `json:"do,omitempty"`
	// Setting is the toolscope setting that would help instead.
	Setting Setting `json:"setting,omitempty"`
	// Value is the value to give Setting; "" means another value of the
	// person's choice, such as another model.
	Value string `json:"value,omitempty"`
}

// Text words the fix for one front end: change words the setting and its
// value as that front end applies them, e.g. "run with --mode chat"; Text
// calls it only when the fix names a setting.
func (f *Fix) Text(change func(setting Setting, value string) string) string {
	if f.Setting == "" {
		return f.Do
	}
	c := change(f.Setting, f.Value)
	if f.Do == "" {
		return c
	}
	return f.Do + ", or " + c
}

// String words the fix without any front end's syntax, for logs and for
// callers that know no better.
func (f *Fix) String() string {
	return f.Text(func(setting Setting, value string) string {
		if value == "" {
			return "choose another " + string(setting)
		}
		return "set " + string(setting) + " to " + value
	})
}
