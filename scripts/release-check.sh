#!/usr/bin/env bash
# Checks .goreleaser.yaml and builds a snapshot release with it, as
# `goreleaser release` does on a tag but publishing nothing, into dist/.
# Then it checks what it made: an archive for each platform holding the
# binary, README.md and LICENSE; checksums that match; binaries built
# without cgo; and this machine's binary saying its version and commit in
# `toolscope version` and in the header of a recording.
#
# goreleaser is installed with `go install` when it is missing: that
# compiles it from source, minutes. The snapshot compiles toolscope for
# six platforms, minutes more. The image is built too where `docker
# buildx` is there (it needs a registry for its base);
# scripts/image-test.sh builds and tests the image with podman offline.
# docs/install.md#making-a-release says how a release is published.
set -euo pipefail
cd "$(dirname "$0")/.."

goreleaser_version=v2.15.1
platforms="linux_amd64 linux_arm64 darwin_amd64 darwin_arm64 windows_amd64 windows_arm64"

say() { echo "release-check: $*" >&2; }
fail() {
	say "FAILED: $*"
	exit 1
}

# timed runs a step and says how long it took.
timed() {
	local started=$SECONDS
	"$@"
	say "  ($((SECONDS - started))s)"
}

# findGoreleaser prints the goreleaser to use: PATH's, else the one `go
# install` left, else one installed now.
findGoreleaser() {
	local bin
	if command -v goreleaser; then
		return
	fi
	bin=$(go env GOBIN)
	bin=${bin:-$(go env GOPATH)/bin}
	if [[ ! -x $bin/goreleaser ]]; then
		say "installing goreleaser $goreleaser_version with go install (it compiles from source: minutes)…"
		timed go install "github.com/goreleaser/goreleaser/v2@$goreleaser_version" >&2
	fi
	echo "$bin/goreleaser"
}

# snapshot builds the release without publishing; the image only where
# buildx can build it.
snapshot() {
	local skip=(--skip=docker)
	if docker buildx version >/dev/null 2>&1; then
		skip=()
	else
		say "no docker buildx here: the image is left out (scripts/image-test.sh tests it)"
	fi
	# Without a remote (a local clone, a worktree made from one),
	# goreleaser's snapshot stamps the commit "none": name one for it
	# alone, leaving the repository's config as it is.
	local remote=()
	if [[ -z $(git remote) ]]; then
		remote=(GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url GIT_CONFIG_VALUE_0=https://github.com/toolscope/toolscope)
	fi
	env "${remote[@]}" "$goreleaser" release --snapshot --clean "${skip[@]}"
}

# archiveFiles lists the files in an archive, sorted.
archiveFiles() {
	case $1 in
	*.zip) unzip -Z1 "$1" ;;
	*) tar -tzf "$1" ;;
	esac | sort | tr '\n' ' '
}

# checkArchives checks each platform's archive, its files and its
# binary's build settings, and the checksums.
checkArchives() {
	local platform archive binary want got path
	for platform in $platforms; do
		archive=dist/toolscope_${version}_$platform.tar.gz
		binary=toolscope
		if [[ $platform == windows_* ]]; then
			archive=${archive%.tar.gz}.zip
			binary=toolscope.exe
		fi
		[[ -f $archive ]] || fail "no $archive"
		want=$(printf '%s\n' LICENSE README.md "$binary" | sort | tr '\n' ' ')
		got=$(archiveFiles "$archive")
		[[ $got == "$want" ]] || fail "$archive holds $got, want $want"
		path=$(echo "dist/toolscope_$platform"*/"$binary")
		go version -m "$path" | grep -q 'CGO_ENABLED=0' || fail "$platform's binary was built with cgo"
		# -trimpath leaves the -ldflags out of the build settings: look
		# for the values themselves.
		grep -qaF "v$version" "$path" && grep -qaF "$commit" "$path" || fail "$platform's binary lacks the version v$version or the commit $commit"
		say "  $archive: $got"
	done
	(cd dist && sha256sum --quiet -c "toolscope_${version}_checksums.txt") || fail "checksums do not match"
	say "  toolscope_${version}_checksums.txt matches the $(wc -l <"dist/toolscope_${version}_checksums.txt") archives"
}

# checkVersion runs this machine's binary from its archive: `toolscope
# version` and a recording's header must name the version and commit.
checkVersion() {
	local host want line base run header
	host=$(go env GOOS)_$(go env GOARCH)
	tar -xzf "dist/toolscope_${version}_$host.tar.gz" -C "$work" toolscope
	# goreleaser says whether the tree was modified only once there is a
	# tag: the version, commit and date are what must be there.
	want="v$version (commit ${commit:0:12}, $date"
	line=$("$work/toolscope" version)
	[[ $line == "toolscope $want"[,\)]* ]] || fail "toolscope version says '$line', want 'toolscope $want)'"
	say "  toolscope version: $line"

	"$work/toolscope" serve --backend demo --demo-delay 0 --no-history --addr 127.0.0.1:0 >"$work/serve.log" 2>&1 &
	serve=$!
	for _ in $(seq 100); do
		base=$(sed -n 's/^toolscope is serving \(http:[^ ]*\).*/\1/p' "$work/serve.log")
		[[ -n $base ]] && break
		sleep 0.1
	done
	run=$(curl -sf "$base/api/query" -H 'Content-Type: application/json' -d '{"query": "What is 2+2?"}' |
		sed -n 's/.*"run_id":"\([^"]*\)".*/\1/p')
	[[ -n $run ]] || fail "no run from the snapshot's serve: $(cat "$work/serve.log")"
	header=$(curl -sf "$base/api/runs/$run/export" | head -n 1)
	[[ $header == *"\"toolscope\":\"$want"[,\)]* ]] || fail "the recording's header is $header, want \"toolscope\":\"$want)\""
	say "  a recording's header: ${header:0:100}…"
}

work=$(mktemp -d)
serve=
trap '[[ -z $serve ]] || kill "$serve"; rm -rf "$work"' EXIT

started=$SECONDS
goreleaser=$(findGoreleaser)
say "goreleaser check"
timed "$goreleaser" check
say "goreleaser release --snapshot (archives and checksums, nothing published)"
timed snapshot

version=$(sed -n 's/.*"version":"\([^"]*\)".*/\1/p' dist/metadata.json)
commit=$(git rev-parse HEAD)
date=$(TZ=UTC git log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ)
say "checking the archives of $version"
checkArchives
say "checking which toolscope this machine's binary says it is"
checkVersion
say "all checked in $((SECONDS - started))s"
