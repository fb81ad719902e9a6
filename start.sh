#!/usr/bin/env bash
# Builds toolscope and starts the browser playground. toolscope chooses
# the backend itself (--backend auto): a real model through Ollama when
# Ollama answers and has the model pulled, else the offline demo model
# (the page says which, and why).
#
# Run in a terminal, when Ollama answers but lacks the model, it first asks
# "Pull qwen3:4b now (2.5 GB)? [Y/n]" and pulls it with a progress bar
# (toolscope serve --offer-pull); elsewhere, as in a script, it asks
# nothing. The page offers the same pull, and 'bin/toolscope pull MODEL'
# is the pull alone.
#
# Settings come from toolscope's own flags and TOOLSCOPE_* environment
# variables (see 'bin/toolscope serve -h'), for example:
#
#   TOOLSCOPE_ADDR   where to serve        (default 127.0.0.1:8000)
#   TOOLSCOPE_MODEL  the Ollama model      (default qwen3:4b)
#   OLLAMA_HOST      where Ollama listens  (default 127.0.0.1:11434)
#
# Further arguments go to 'toolscope serve', e.g. ./start.sh --tool-delay 1s
#
# What it says: a build says so on stderr and counts the packages it
# compiles (the first one takes minutes); with bin/toolscope up to date,
# nothing. Then toolscope serve says where the page is ("toolscope is
# serving http://127.0.0.1:8000 (model … on …)"), with the links to open
# when it asks for a token.
#
# An OpenAI-compatible server (vLLM, llama-server, LM Studio) is used only
# when asked for: auto never picks it, since OPENAI_BASE_URL is often set
# for other tools. toolscope reads OPENAI_BASE_URL and OPENAI_API_KEY
# itself, so with them set this is enough:
#
#   OPENAI_BASE_URL=http://127.0.0.1:8000/v1 ./start.sh --backend openai
#
# (Serving toolscope on 8000 as vLLM does? Add --addr 127.0.0.1:8080.)
set -euo pipefail
cd "$(dirname "$0")"

if ! command -v go >/dev/null; then
	echo "start.sh builds toolscope with Go 1.26 or newer: get it from https://go.dev/dl/" >&2
	exit 1
fi

# stamp prints the linker flags that name the commit toolscope is built
# from, for 'toolscope version' and every recording's header. go build
# stamps a plain clone itself, but not a git worktree, nor under
# GOFLAGS=-buildvcs=false; outside a git checkout it prints nothing.
stamp() {
	local pkg=github.com/toolscope/toolscope/internal/buildinfo top commit
	top=$(git rev-parse --show-toplevel 2>/dev/null) && [[ $top -ef . ]] || return 0
	commit=$(git rev-parse HEAD) || return 0
	printf -- '-X %s.commit=%s -X %s.date=%s' "$pkg" "$commit" "$pkg" "$(git log -1 --format=%cI)"
	if [[ -n $(git status --porcelain 2>/dev/null) ]]; then
		printf -- ' -X %s.modified=true' "$pkg"
	fi
}

# build builds bin/toolscope, and says so only when there is work: a
# first build compiles some 380 packages, minutes on a busy laptop.
# 'go build -n' plans without building: up to date, its plan is a touch.
build() {
	local ldflags plan todo
	ldflags=$(stamp)
	plan=$(go build -n -ldflags "$ldflags" -o bin/toolscope ./cmd/toolscope 2>&1 | showDownloads) || true
	if ! grep -qv '^touch ' <<<"$plan"; then
		return # up to date
	fi
	# An upper bound: a package whose dependencies changed only inside
	# may turn out to need no compiling.
	todo=$(grep -cE '/compile( |$)' <<<"$plan") || true
	if ((todo > 50)); then
		echo "building toolscope: $todo packages to compile (a first build, with nothing cached, takes some 8 minutes on 2 cores)…" >&2
	elif ((todo > 0)); then
		echo "building toolscope: up to $todo packages to compile…" >&2
	else
		echo "building toolscope…" >&2
	fi
	local started=$SECONDS
	go build -v -ldflags "$ldflags" -o bin/toolscope ./cmd/toolscope 2>&1 | progress "$todo"
	echo "built toolscope in $((SECONDS - started))s" >&2
}

# showDownloads passes go build -n's plan on, but shows its "go: downloading
# …" lines: a fresh clone fetches the modules before any plan is made.
showDownloads() {
	local line
	while IFS= read -r line; do
		if [[ $line == "go: downloading "* ]]; then echo "$line" >&2; else echo "$line"; fi
	done
}

# progress turns go build -v's package names into a counter: one line
# rewritten on a terminal, else a line per package. Anything else, such
# as a compile error, goes to stderr as it is, on a line of its own.
progress() {
	local todo=$1 compiled=0 open=false line
	while IFS= read -r line; do
		if [[ $line =~ ^[[:alnum:]._/~+-]+$ ]]; then
			compiled=$((compiled + 1))
			if [[ -t 2 ]]; then
				printf '\r\033[K  [%d/%d] %s' "$compiled" "$todo" "$line" >&2
				open=true
				continue
			fi
			line=$(printf '  [%d/%d] %s' "$compiled" "$todo" "$line")
		fi
		if $open; then echo >&2; fi
		open=false
		echo "$line" >&2
	done
	if $open; then echo >&2; fi
}

mkdir -p bin
build
# A question needs a person to answer it: stdin and stderr a terminal.
if [[ -t 0 && -t 2 ]]; then
	exec bin/toolscope serve --offer-pull "$@"
fi
exec bin/toolscope serve "$@"
