#!/usr/bin/env bash
# Builds toolscope's image from the Dockerfile with podman, on scratch so
# that no registry is needed, and uses it as a user would: runs it with a
# named volume for /data and its port published, reads the token from its
# logs, then opens the page, /api/health and /v1/chat/completions (the
# demo model) with it, runs its HEALTHCHECK, and restarts it to find the
# run kept in the volume. It says what it checked, and exits non-zero at
# the first failure. It installs Debian's podman when it is missing.
#
# The binary is built as a release builds it (static, CGO_ENABLED=0), for
# this machine's architecture, and laid out as goreleaser lays out the
# image's build context: linux/<arch>/toolscope.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "image-test: $*" >&2; }
fail() {
	say "FAILED: $*"
	exit 1
}
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# timed runs a step and says how long it took.
timed() {
	local started=$SECONDS
	"$@"
	say "  ($((SECONDS - started))s)"
}

installPodman() {
	as_root apt-get update -qq
	DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq podman runc >/dev/null
}

work=$(mktemp -d)
image=localhost/toolscope-image-test:$$
name=toolscope-image-test-$$
volume=toolscope-image-test-$$
cleanup() {
	podman rm -f -v "$name" >/dev/null 2>&1 || true
	podman volume rm -f "$volume" >/dev/null 2>&1 || true
	podman rmi -f "$image" >/dev/null 2>&1 || true
	rm -rf "$work"
}

# podman's settings for these containers only. Debian's containers.conf
# raises each container's open files limit (default_ulimits), which a
# host that is itself a container may forbid: runc then fails with "error
# setting rlimits … operation not permitted". runc with cgroupfs works
# with or without systemd.
configurePodman() {
	cat >"$work/containers.conf" <<-'EOF'
		[containers]
		default_ulimits = []
		[engine]
		runtime = "runc"
		cgroup_manager = "cgroupfs"
	EOF
	export CONTAINERS_CONF=$work/containers.conf
}

# build builds the binary and the image from it, with --format docker:
# podman's default, OCI, has no HEALTHCHECK and drops it. buildx sets
# TARGETPLATFORM itself; podman 4.3 does too, but warns unless given it.
# --layers=false keeps no image of the Dockerfile's empty stage behind.
build() {
	local arch
	arch=$(go env GOARCH)
	mkdir -p "$work/context/linux/$arch"
	CGO_ENABLED=0 GOOS=linux GOARCH="$arch" go build -trimpath -ldflags "-s -w" -o "$work/context/linux/$arch/toolscope" ./cmd/toolscope
	cp Dockerfile "$work/context/"
	podman build --quiet --layers=false --format docker --build-arg BASE=scratch --build-arg TARGETPLATFORM="linux/$arch" -t "$image" "$work/context" >/dev/null
}

checkImage() {
	local config healthcheck version
	config=$(podman image inspect "$image" --format '{{.Config.User}} {{.Config.ExposedPorts}} {{.Config.Volumes}} {{.Config.Entrypoint}} {{.Config.Cmd}}')
	[[ $config == "65532:65532 map[8000/tcp:{}] map[/data:{}] [toolscope] [serve]" ]] ||
		fail "the image's user, port, volume, entrypoint and command are $config"
	healthcheck=$(podman image inspect "$image" | tr -d ' \n' | grep -o '"Healthcheck":{"Test":\[[^]]*\]' | tail -n 1)
	[[ $healthcheck == '"Healthcheck":{"Test":["CMD","toolscope","health"]' ]] || fail "the image's health check is ${healthcheck:-none}"
	version=$(podman run --rm "$image" version 2>>"$work/run.err")
	[[ $version == "toolscope "*" linux/$(go env GOARCH)" ]] || fail "toolscope version in the image says $version"
	say "  user 65532, port 8000, volume /data, HEALTHCHECK toolscope health, $(($(podman image inspect "$image" --format '{{.Size}}') / 1000000)) MB"
	say "  $version"
}

# start runs the image as docs/install.md says, on a port of podman's
# choosing, and waits for it to serve. podman without systemd cannot
# schedule the health check and says so on stderr; healthcheck runs it.
start() {
	podman run -d --name "$name" -p 127.0.0.1::8000 -v "$volume:/data" "$image" >/dev/null 2>"$work/run.err" ||
		fail "podman run: $(cat "$work/run.err")"
	for _ in $(seq 100); do
		podman logs "$name" 2>&1 | grep -q '^toolscope is serving' && break
		sleep 0.2
	done
	base=http://$(podman port "$name" 8000/tcp)
	token=$(podman logs "$name" 2>/dev/null | grep -A1 'Yours, to start and stop runs' | tail -n 1 | sed -n 's/.*?token=//p')
	[[ -n $token ]] || fail "no token in the logs: $(podman logs "$name" 2>&1)"
}

# status prints the HTTP status of a request, its body in $work/body.
status() {
	curl -s -o "$work/body" -w '%{http_code}' "$@"
}

expect() {
	local want=$1 what=$2 got
	shift 2
	got=$(status "$@")
	[[ $got == "$want" ]] || fail "$what: HTTP $got, want $want: $(head -c 300 "$work/body")"
}

checkServing() {
	local page health answer
	podman logs "$name" 2>/dev/null | grep -q '^Every request needs a token' || fail "the logs do not say a token is needed"
	say "  the logs give the links with the token; serving at $base (0.0.0.0:8000 inside)"
	expect 401 "/api/health without the token" "$base/api/health"
	expect 200 "/api/health with the token" -H "Authorization: Bearer $token" "$base/api/health"
	health=$(cat "$work/body")
	[[ $health == *'"ok":true'* && $health == *'"history":{"on":true,"path":"/data/history.db"}'* ]] ||
		fail "/api/health says $health"
	say "  /api/health: 401 without the token; with it ok, the history in /data/history.db"
	expect 200 "the page with ?token=" "$base/?token=$token"
	page=$(cat "$work/body")
	[[ $page == *"<title>"*toolscope* ]] || fail "the page is ${page:0:300}"
	say "  the page: 200, HTML"
	expect 401 "/v1 without the token" "$base/v1/chat/completions" -H 'Content-Type: application/json' -d '{}'
	expect 200 "/v1/chat/completions" -H "Authorization: Bearer $token" -H 'Content-Type: application/json' "$base/v1/chat/completions" \
		-d '{"model": "toolscope-demo", "messages": [{"role": "user", "content": "Hello!"}]}'
	answer=$(cat "$work/body")
	[[ $answer == *'"object":"chat.completion"'* && $answer == *'"role":"assistant","content":"'?* ]] || fail "/v1 answered $answer"
	say "  /v1/chat/completions with the token: a chat.completion from toolscope-demo"
}

checkHealthcheck() {
	local said state
	podman healthcheck run "$name" >/dev/null || fail "podman healthcheck run: $(podman inspect "$name" --format '{{json .State.Health}}')"
	state=$(podman inspect "$name" --format '{{.State.Health.Status}}')
	[[ $state == healthy ]] || fail "the container's health is $state"
	said=$(podman exec "$name" toolscope health) || fail "toolscope health in the container: $said"
	say "  HEALTHCHECK: $state; it says: $said"
}

# checkVolume restarts the container: new tokens, and the /v1 run still
# there, read from the volume.
checkVolume() {
	local runs
	podman restart "$name" >/dev/null 2>>"$work/run.err"
	start_again
	expect 200 "/api/runs after a restart" -H "Authorization: Bearer $token" "$base/api/runs"
	runs=$(cat "$work/body")
	[[ $runs == *'"source":"api"'* && $runs == *'"message":"Hello!"'* && $runs == *'"stored":true'* ]] ||
		fail "after a restart /api/runs says ${runs:0:500}"
	say "  restarted: the /v1 run is still listed, from the volume"
}

# start_again waits for the restarted container's new links.
start_again() {
	local before=$token
	for _ in $(seq 100); do
		token=$(podman logs "$name" 2>/dev/null | grep -A1 'Yours, to start and stop runs' | tail -n 1 | sed -n 's/.*?token=//p')
		[[ $token != "$before" ]] && break
		sleep 0.2
	done
	[[ $token != "$before" ]] || fail "no new token after the restart: $(podman logs "$name" 2>&1 | tail -n 5)"
	base=http://$(podman port "$name" 8000/tcp)
}

started=$SECONDS
if ! command -v podman >/dev/null; then
	say "installing Debian's podman"
	timed installPodman
fi
trap cleanup EXIT
configurePodman
say "building toolscope (static) and the image, FROM scratch"
timed build
say "checking the image"
timed checkImage
say "running it: podman run -p 127.0.0.1::8000 -v $volume:/data"
timed start
timed checkServing
say "its health check"
timed checkHealthcheck
say "restarting it"
timed checkVolume
say "all checked in $((SECONDS - started))s"
