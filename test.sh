#!/usr/bin/env bash
# The whole test suite, as CI runs it: formatting, vet, the race-checked
# tests, and a short fuzzing pass over the stream parser.
set -euo pipefail
cd "$(dirname "$0")"

unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
	echo "gofmt would change: $unformatted" >&2
	exit 1
fi
go vet ./...
go test -race -count=1 ./...
go test -run '^$' -fuzz '^FuzzParse$' -fuzztime "${FUZZTIME:-15s}" ./streamparser/
