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

# table prints, per pace, the medians of events/s and p99-µs at each
# level of telemetry, and the ratios that matter: metrics against none
# (what tracing off costs), traces against metrics (what tracing on costs).
table() {
	awk '$1 ~ /^BenchmarkDelivery\// {
		split($1, name, "/"); sub(/-[0-9]+$/, "", name[3]); sub(/^telemetry=/, "", name[3])
		for (i = 3; i < NF; i++) {
			if ($(i+1) == "events/s") eps = $i
			if ($(i+1) == "p99-µs") p99 = $i
		}
		if (!(name[2] in seen)) { seen[name[2]] = 1; paces[++npaces] = name[2] }
		k = name[2] SUBSEP name[3]
		n = ++count[k]; e[k, n] = eps; p[k, n] = p99
	}
	function median(a, k,   c, j, l, x, s) {
		c = count[k]
		# An insertion sort: mawk, the awk of Debian, has no asort.
		for (j = 1; j <= c; j++) {
			x = a[k, j] + 0
			for (l = j - 1; l >= 1 && s[l] > x; l--) s[l+1] = s[l]
			s[l+1] = x
		}
		return c % 2 ? s[(c+1)/2] : (s[c/2] + s[c/2+1]) / 2
	}
	END {
		print "| model | events/s: none | metrics | traces | traces + content | metrics / none | traces / metrics | traces + content / metrics | p99 µs: none | metrics | traces | traces + content |"
		print "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
		for (i = 1; i <= npaces; i++) {
			c = paces[i]
			en = median(e, c SUBSEP "none"); em = median(e, c SUBSEP "metrics")
			et = median(e, c SUBSEP "traces"); ec = median(e, c SUBSEP "traces+content")
			printf "| %s | %.0f | %.0f | %.0f | %.0f | %.1f%% | %.1f%% | %.1f%% | %.0f | %.0f | %.0f | %.0f |\n", c, en, em, et, ec,
				100 * em / en, 100 * et / em, 100 * ec / em,
				median(p, c SUBSEP "none"), median(p, c SUBSEP "metrics"), median(p, c SUBSEP "traces"), median(p, c SUBSEP "traces+content")
		}
	}' "$raw"
}

# perEvent prints the medians of BenchmarkObserve's ns/event, and what
# share they are of an event's whole cost with no telemetry, flat out
# (one second over BenchmarkDelivery's median events/s): the cost of each
# level measured alone, which the machine's moods move less than they
# move throughput.
perEvent() {
	awk '$1 ~ /^BenchmarkDelivery\/flat-out\/telemetry=none/ {
		for (i = 3; i < NF; i++) if ($(i+1) == "events/s") base[++nbase] = $i
	}
	$1 ~ /^BenchmarkObserve\// {
		split($1, name, "/"); sub(/-[0-9]+$/, "", name[2]); sub(/^telemetry=/, "", name[2])
		for (i = 3; i < NF; i++) if ($(i+1) == "ns/event") v = $i
		if (!(name[2] in seen)) { seen[name[2]] = 1; levels[++nlevels] = name[2] }
		n = ++count[name[2]]; x[name[2], n] = v
	}
	function median(a, c, k,   j, l, y, s) {
		for (j = 1; j <= c; j++) {
			y = (k == "" ? a[j] : a[k, j]) + 0
			for (l = j - 1; l >= 1 && s[l] > y; l--) s[l+1] = s[l]
			s[l+1] = y
		}
		return c % 2 ? s[(c+1)/2] : (s[c/2] + s[c/2+1]) / 2
	}
	END {
		event = 1e9 / median(base, nbase, "")
		printf "An event of the live stream costs %.0f ns with no telemetry, flat out (the median above). What each level adds to one event of a run of 5,000 tokens (BenchmarkObserve):\n\n", event
		print "| telemetry | ns per event | share of the cost of an event |"
		print "| --- | ---: | ---: |"
		for (i = 1; i <= nlevels; i++) {
			m = median(x, count[levels[i]], levels[i])
			printf "| %s | %.1f | %.1f%% |\n", levels[i], m, 100 * m / event
		}
	}' "$raw"
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
