package buildinfo

import (
	"runtime/debug"
	"testing"
)

// A test binary has no stamped module version: the go command marks it
// "(devel)", which must read as "devel", never as a version.
func TestVersionUnstamped(t *testing.T) {
	if got := Version(); got != "devel" {
		t.Errorf("Version() = %q, want devel", got)
	}
}

const revision = "c5fba9edabd266dba0cc3f47219ae0b8ccbc2954"

func stamped(version string, modified string) *debug.BuildInfo {
	return &debug.BuildInfo{Main: debug.Module{Path: "github.com/toolscope/toolscope", Version: version}, Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: revision},
		{Key: "vcs.time", Value: "2026-12-02T01:11:53Z"},
		{Key: "vcs.modified", Value: modified},
	}}
}

// What `go build` records in a git checkout says which commit wrote a
// recording: the version carries it, whatever the module version says.
func TestVersionCarriesTheCommit(t *testing.T) {
	for _, c := range []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"no module version", stamped("(devel)", "false"), "devel (commit c5fba9edabd2, 2026-12-02T01:11:53Z)"},
		{"a pseudo-version", stamped("v0.0.0-20261202011153-c5fba9edabd2+dirty", "true"), "devel (commit c5fba9edabd2, 2026-12-02T01:11:53Z, modified)"},
		{"a tag", stamped("v1.2.3", "false"), "v1.2.3 (commit c5fba9edabd2, 2026-12-02T01:11:53Z)"},
		{"go install of a tag", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := fromBuildInfo(c.bi).String(); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// start.sh's -ldflags -X values win: they are set where the go command
// stamps nothing, such as a git worktree.
func TestLinkerValuesWin(t *testing.T) {
	defer func(v, c, d, m string) { version, commit, date, modified = v, c, d, m }(version, commit, date, modified)
	version, commit, date, modified = "", revision, "2026-12-02T02:00:00+01:00", "true"
	if got, want := Version(), "devel (commit c5fba9edabd2, 2026-12-02T02:00:00+01:00, modified)"; got != want {
		t.Errorf("Version() = %q, want %q", got, want)
	}
	version = "v2.0.0"
	if got := Read(); got.Version != "v2.0.0" || got.Commit != revision {
		t.Errorf("Read() = %+v", got)
	}
}
