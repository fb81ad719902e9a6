#!/usr/bin/env bash
# The whole test suite, as CI runs it. It installs what the tests need when
# it is missing: Debian's chromium for the browser tests, and from npm the
# public MCP server-everything for the MCP client's tests, the official
# openai client for the tests of toolscope's /v1 API, and TypeScript and
# ESLint, which check the page's scripts.
set -euo pipefail
cd "$(dirname "$0")"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if ! command -v chromium >/dev/null; then
	echo "test.sh: installing Debian's chromium for the browser tests" >&2
	as_root apt-get update -qq
	DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq chromium >/dev/null
fi

# One install for all: npm prunes packages installed with --no-save that
# a later install does not name.
if [ ! -x node_modules/.bin/mcp-server-everything ] || [ ! -f node_modules/openai/package.json ] ||
	[ ! -x node_modules/.bin/tsc ] || [ ! -x node_modules/.bin/eslint ] || [ ! -f node_modules/@eslint/js/package.json ]; then
	echo "test.sh: installing @modelcontextprotocol/server-everything for the MCP tests, the openai client for the /v1 API's, and typescript and eslint for the page's scripts" >&2
	npm install --no-save --no-audit --no-fund --silent @modelcontextprotocol/server-everything openai@7 typescript@7 eslint@10 @eslint/js@10
fi
# Some npm packages ship Go code (eslint's flatted does): a go.mod of its
# own makes node_modules another module, which ./... leaves out.
[ -f node_modules/go.mod ] || printf 'module node_modules\n' >node_modules/go.mod

unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
	echo "gofmt would change: $unformatted" >&2
	exit 1
fi
# The generated templ code is committed; it must match its source.
go tool templ generate -path frontend/web >/dev/null 2>&1
if ! git diff --quiet -- 'frontend/web/*_templ.go'; then
	echo "frontend/web/*_templ.go is out of date: run 'go tool templ generate -path frontend/web' and commit" >&2
	git diff --stat -- 'frontend/web/*_templ.go' >&2
	exit 1
fi
# The page's scripts: type-checked from their JSDoc (frontend/web/tsconfig.json)
# and linted (frontend/web/eslint.config.mjs).
node_modules/.bin/tsc -p frontend/web/tsconfig.json
node_modules/.bin/eslint frontend/web/static
go vet ./...
# The MCP conformance suite against toolscope's client and servers; it
# installs the suite and Node.js 22 into a node_modules of its own
# (docs/mcp.md#conformance). It runs before the Go tests, not beside
# them: its OAuth scenarios follow a sign-in through toolscope within the
# suite's time limits, and one failed so with the race-detected browser
# tests sharing the two cores (1 full run in 3).
scripts/conformance/run.sh
# The browser tests first: the longest package (some 5 of the minutes),
# mostly waiting on Chromium, with the others beside it rather than after.
go test -race -count=1 ./frontend/web ./...
# The eval harness's memory test, which the race detector would slow
# tenfold: 11,000 cases must leave no more heap than 1,000.
go test -count=1 -run '^TestMemoryDoesNotGrowWithCases$' ./eval/runner/
# The parser benchmarks, once each: they check that both parsers find the
# call (./streamparser/bench.sh measures them).
go test -run '^$' -bench '^BenchmarkParse$' -benchtime 1x ./streamparser/ >/dev/null
# Each fuzz target of the stream parser, for a bounded number of inputs.
# A count, not a duration: Go 1.26's fuzzer can fail a run that ends on a
# deadline with a spurious "context deadline exceeded" (golang/go#75804).
for target in $(go test -list '^Fuzz' ./streamparser/ | grep '^Fuzz'); do
	go test -run '^$' -fuzz "^${target}\$" -fuzztime "${FUZZTIME:-50000x}" ./streamparser/
done
