#!/usr/bin/env bash
# Runs BenchmarkDelivery (a run streaming to a viewer with the history off
# and on) COUNT times, the cases interleaved so that the machine's moods
# fall on both alike, and writes docs/history-benchmarks.md: the medians,
# the ratio, and the date, Go version, machine and command behind them.
#   COUNT=9 ./store/bench.sh                 more runs (default 5)
#   OUT=/dev/stdout ./store/bench.sh         print instead of writing the page
set -euo pipefail
cd "$(dirname "$0")/.."

count=${COUNT:-5}
out=${OUT:-docs/history-benchmarks.md}
bin=$(mktemp)
raw=$(mktemp)
trap 'rm -f "$bin" "$raw"' EXIT
go test -c -o "$bin" ./store
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
for i in $(seq "$count"); do
	echo "bench.sh: run $i of $count" >&2
	(cd store && "$bin" -test.run '^$' -test.bench '^BenchmarkDelivery$' -test.benchmem -test.count 1) |
		sed 's/[[:space:]]*$//' >>"$raw"
done

# table prints, per case, the medians of events/s and p99-µs with the
# history off and on (internal/streambench/medians.awk takes the medians).
table() {
	awk -f internal/streambench/medians.awk "$raw" | awk -F'\t' '$1 ~ /^BenchmarkDelivery\// {
		split($1, name, "/"); sub(/^history=/, "", name[3])
		if (!(name[2] in seen)) { seen[name[2]] = 1; cases[++ncases] = name[2] }
		m[name[2], name[3], $2] = $3
	}
	END {
		print "| model | events/s, history off | on | on / off | p99 µs, off | on | added p99 |"
		print "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
		for (i = 1; i <= ncases; i++) {
			c = cases[i]
			eoff = m[c, "off", "events/s"]; eon = m[c, "on", "events/s"]; poff = m[c, "off", "p99-µs"]; pon = m[c, "on", "p99-µs"]
			printf "| %s | %.0f | %.0f | %.1f%% | %.0f | %.0f | %+.0f µs |\n", c, eoff, eon, 100 * eon / eoff, poff, pon, pon - poff
		}
	}'
}

cpu=$(grep -m1 '^model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if ! git diff --quiet HEAD 2>/dev/null; then
	commit="$commit, with uncommitted changes"
fi

{
	cat <<EOF2
# History benchmarks

Written by \`./store/bench.sh\`; do not edit by hand, run it again. It runs
\`BenchmarkDelivery\` (in [store/bench_test.go](../store/bench_test.go)): a
run whose model writes 5,000 tokens (about 10,000 events) to one viewer,
with the [history](teaching.md#history-that-survives-a-restart) off and on,
side by side. \`flat-out\` is a model that writes as fast as the run takes
its tokens, far faster than any real one: every cycle the history takes
shows as throughput lost. \`paced\` writes at most 20,000 tokens a second,
still more than any model, so that the delay measured is delivery's, not a
queue's. events/s is what the viewer receives; p99 µs is the 99th
percentile of the time from a token leaving the model to the viewer getting
its event.

Each figure is the median of $count runs, the cases taking turns. The aim:
with the history on, at least 95% of the throughput without it, and under
1 ms added to the p99 delay.

$(table)

- date: $(date -u '+%Y-%m-%d %H:%M UTC')
- Go: $(go version | sed 's/^go version //')
- CPU: ${cpu:-unknown}
- cores: $(getconf _NPROCESSORS_ONLN 2>/dev/null || echo unknown)
- load average before the run: $load
- commit: $commit
- command: \`COUNT=$count ./store/bench.sh\`

Figures move with the machine and with whatever else runs on it (the load
average above): on two cores, a busy neighbour moves them more than the
history does.

<details><summary>Raw output of the benchmark</summary>

\`\`\`
$(cat "$raw")
\`\`\`

</details>
EOF2
} >"$out"
echo "bench.sh: wrote $out" >&2
