// Package buildinfo says which toolscope this is, in one place, so that
// recordings, the MCP client's handshake and `toolscope version` agree.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Set by the linker for builds the go command cannot stamp itself: a git
// worktree, GOFLAGS=-buildvcs=false, a release built from a tarball.
// start.sh sets the commit, its date and modified, as in
//
//	-X github.com/toolscope/toolscope/internal/buildinfo.commit=<hash>
//
// and .goreleaser.yaml the version too, the release's tag. They win over
// what the go command stamped.
var version, commit, date, modified string

// Info is which toolscope this is.
type Info struct {
	Version  string // a release's tag, or "devel"
	Commit   string // the git commit built from; "" when unknown
	Date     string // that commit's time, as git gives it
	Modified bool   // built with changes not committed
}

// Read is this build's Info: the linker's values, else those the go
// command stamped (vcs.revision, vcs.time and vcs.modified, which `go
// build` records in a git checkout).
func Read() Info {
	bi, _ := debug.ReadBuildInfo()
	return fromBuildInfo(bi).overriddenBy(Info{Version: version, Commit: commit, Date: date, Modified: modified == "true"})
}

// Version is Read as one line, as recordings and `toolscope version` give
// it: "v1.2.3", or "devel (commit 0123456789ab, 2026-12-02T01:11:53Z,
// modified)", or "devel" when nothing says more (`go run`, `go test`).
func Version() string { return Read().String() }

// fromBuildInfo reads what the go command stamped. Main.Version is a tag
// for `go install …@v1.2.3`; from a git checkout it is a pseudo-version
// made of the commit's time and hash, which the commit and date say more
// plainly; "(devel)" when there is neither.
func fromBuildInfo(bi *debug.BuildInfo) Info {
	info := Info{Version: "devel"}
	if bi == nil {
		return info
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Commit = s.Value
		case "vcs.time":
			info.Date = s.Value
		case "vcs.modified":
			info.Modified = s.Value == "true"
		}
	}
	v := bi.Main.Version
	if v != "" && v != "(devel)" && (info.Commit == "" || !strings.Contains(v, short(info.Commit))) {
		info.Version = v
	}
	return info
}

// overriddenBy is info with the fields link sets in their place. A commit
// from the linker brings its own date and modified state.
func (info Info) overriddenBy(link Info) Info {
	if link.Version != "" {
		info.Version = link.Version
	}
	if link.Commit != "" {
		info.Commit, info.Date, info.Modified = link.Commit, link.Date, link.Modified
	}
	return info
}

func (info Info) String() string {
	if info.Commit == "" {
		return info.Version
	}
	details := []string{"commit " + short(info.Commit)}
	if info.Date != "" {
		details = append(details, info.Date)
	}
	if info.Modified {
		details = append(details, "modified")
	}
	return info.Version + " (" + strings.Join(details, ", ") + ")"
}

// short is a commit hash as pseudo-versions and most tools show it.
func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}
