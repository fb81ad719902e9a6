#!/usr/bin/env bash
# Runs telemetry's BenchmarkDelivery (a run streaming to a viewer with no
# telemetry, with metrics, with traces, with traces and content) and
# BenchmarkObserve (what each adds to one event) COUNT times, the cases
# interleaved, each run starting at the next case, so that neither the
# machine's moods nor a case's place in the order favour one, and writes
# the medians and ratios, with the date, Go version, machine and command
# behind them, into docs/observability.md between its marks.
#   COUNT=9 ./telemetry/bench.sh             more runs (default 5)
#   OUT=/dev/stdout ./telemetry/bench.sh     print the section instead
set -euo pipefail
cd "$(dirname "$0")/.."

count=${COUNT:-5}
doc=docs/observability.md
start='<!-- cost: written by ./telemetry/bench.sh; do not edit by hand -->'
end='<!-- end of the cost -->'
bin=$(mktemp)
raw=$(mktemp)
section=$(mktemp)
trap 'rm -f "$bin" "$raw" "$section"' EXIT
go test -c -o "$bin" ./telemetry
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
cases=()
for pace in flat-out paced; do
	for level in none metrics traces 'traces\+content'; do
		cases+=("^BenchmarkDelivery\$/^$pace\$/^telemetry=$level\$")
	done
done
cases+=('^BenchmarkObserve$')
for i in $(seq "$count"); do
	echo "bench.sh: run $i of $count" >&2
	for j in $(seq 0 $((${#cases[@]} - 1))); do
		bench=${cases[$(((i + j) % ${#cases[@]}))]}
		(cd telemetry && "$bin" -test.run '^$' -test.bench "$bench" -test.benchmem -test.count 1) |
			sed 's/[[:space:]]*$//' | grep '^Benchmark' >>"$raw"
	done
done

# medians prints the median of each metric of each benchmark, a
# tab-separated line each, as store's bench.sh reads its own.
medians() { awk -f internal/streambench/medians.awk "$raw"; }

# table prints, per pace, the medians of events/s and p99-µs at each
# level of telemetry, and the ratios that matter: metrics against none
# (what tracing off costs), traces against metrics (what tracing on costs).
table() {
	medians | awk -F'\t' '$1 ~ /^BenchmarkDelivery\// {
		split($1, name, "/"); sub(/^telemetry=/, "", name[3])
		if (!(name[2] in seen)) { seen[name[2]] = 1; paces[++npaces] = name[2] }
		m[name[2], name[3], $2] = $3
	}
	END {
		print "| model | events/s: none | metrics | traces | traces + content | metrics / none | traces / metrics | traces + content / metrics | p99 µs: none | metrics | traces | traces + content |"
		print "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
		for (i = 1; i <= npaces; i++) {
			c = paces[i]
			en = m[c, "none", "events/s"]; em = m[c, "metrics", "events/s"]
			et = m[c, "traces", "events/s"]; ec = m[c, "traces+content", "events/s"]
			printf "| %s | %.0f | %.0f | %.0f | %.0f | %.1f%% | %.1f%% | %.1f%% | %.0f | %.0f | %.0f | %.0f |\n", c, en, em, et, ec,
				100 * em / en, 100 * et / em, 100 * ec / em,
				m[c, "none", "p99-µs"], m[c, "metrics", "p99-µs"], m[c, "traces", "p99-µs"], m[c, "traces+content", "p99-µs"]
		}
	}'
}

# perEvent prints the medians of BenchmarkObserve's ns/event, and what
# share they are of an event's whole cost with no telemetry, flat out
# (one second over BenchmarkDelivery's median events/s): the cost of each
# level measured alone, which the machine's moods move less than they
# move throughput.
perEvent() {
	medians | awk -F'\t' '$1 == "BenchmarkDelivery/flat-out/telemetry=none" && $2 == "events/s" { event = 1e9 / $3 }
	$1 ~ /^BenchmarkObserve\// && $2 == "ns/event" {
		split($1, name, "/"); sub(/^telemetry=/, "", name[2])
		levels[++nlevels] = name[2]; cost[nlevels] = $3
	}
	END {
		printf "An event of the live stream costs %.0f ns with no telemetry, flat out (the median above). What each level adds to one event of a run of 5,000 tokens (BenchmarkObserve):\n\n", event
		print "| telemetry | ns per event | share of the cost of an event |"
		print "| --- | ---: | ---: |"
		for (i = 1; i <= nlevels; i++) printf "| %s | %.1f | %.1f%% |\n", levels[i], cost[i], 100 * cost[i] / event
	}'
}

cpu=$(grep -m1 '^model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if ! git diff --quiet HEAD 2>/dev/null; then
	commit="$commit, with uncommitted changes"
fi

{
	echo "$start"
	echo
	echo "Each figure is the median of $count runs, the cases taking turns, each run starting at the next case."
	echo
	table
	echo
	perEvent
	echo
	echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "- Go: $(go version | sed 's/^go version //')"
	echo "- CPU: ${cpu:-unknown}"
	echo "- cores: $(getconf _NPROCESSORS_ONLN 2>/dev/null || echo unknown)"
	echo "- load average before the run: $load"
	echo "- commit: $commit"
	echo "- command: \`COUNT=$count ./telemetry/bench.sh\`"
	echo
	echo "<details><summary>Raw output of the benchmark</summary>"
	echo
	echo '```'
	cat "$raw"
	echo '```'
	echo
	echo "</details>"
	echo
	echo "$end"
} >"$section"

if [ -n "${OUT:-}" ]; then
	cat "$section" >"$OUT"
	exit 0
fi
if ! grep -qF "$start" "$doc" || ! grep -qF "$end" "$doc"; then
	echo "bench.sh: $doc lacks the marks $start and $end" >&2
	exit 1
fi
# The section between the marks, marks included, is replaced.
awk -v start="$start" -v end="$end" -v section="$section" '
	$0 == start { while ((getline line < section) > 0) print line; skip = 1; next }
	$0 == end { skip = 0; next }
	!skip { print }
' "$doc" >"$doc.new"
mv "$doc.new" "$doc"
echo "bench.sh: wrote the cost into $doc" >&2
