// Package buildinfo says which toolscope this is, in one place, so that
// recordings, the MCP client's handshake and `toolscope version` agree.
package buildinfo

import "runtime/debug"

// Version is this toolscope's version as the go command stamped it: a tag
// for `go install …@v1.2.3`, a pseudo-version from a git checkout, "devel"
// when there is none (`go run`, `go test`, a build outside a module, which
// the go command marks "(devel)").
func Version() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "devel"
}
