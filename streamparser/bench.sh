#!/usr/bin/env bash
# Runs BenchmarkParse (toolscope's parser and Ollama's own, on the same
# replies and chunks) and writes docs/benchmarks.md: the table of medians
# with the ratio, and the date, Go version, machine and command behind it.
#   COUNT=10 ./streamparser/bench.sh      more runs per benchmark (default 5)
#   OUT=/dev/stdout ./streamparser/bench.sh   print instead of writing the page
set -euo pipefail
cd "$(dirname "$0")/.."

count=${COUNT:-5}
out=${OUT:-docs/benchmarks.md}
gotest=(go test -run '^$' -bench '^Benchmark(Parse|Dialects)$' -benchmem -count "$count" ./streamparser/)

# shown quotes each argument that a shell would read differently.
shown() {
	local arg out=()
	for arg; do
		if [[ $arg =~ ^[A-Za-z0-9_./=:-]+$ ]]; then out+=("$arg"); else out+=("'$arg'"); fi
	done
	echo "${out[*]}"
}

raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
# The load before the run says whether the machine was quiet.
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
echo "bench.sh: $(shown "${gotest[@]}")" >&2
# Trailing spaces (go test pads its cpu line) would show in the page.
"${gotest[@]}" | sed 's/[[:space:]]*$//' >"$raw"

table() {
	awk '$1 ~ /^BenchmarkParse\// {
		split($1, name, "/"); sub(/-[0-9]+$/, "", name[3])
		for (i = 3; i < NF; i++) {
			if ($(i+1) == "ns/op") ns = $i
			if ($(i+1) == "MB/s") mbs = $i
			if ($(i+1) == "allocs/op") allocs = $i
		}
		if (!(name[3] in order)) order[name[3]] = ++n
		print order[name[3]], name[3], name[2], ns, mbs, allocs
	}' "$raw" |
		sort -k1,1n -k3,3 -k4,4g | cut -d" " -f2- |
		awk '
	function median(key,   n) { n = count[key]; return n % 2 ? v[key, (n+1)/2] : (v[key, n/2] + v[key, n/2+1]) / 2 }
	{
		key = $1 SUBSEP $2; count[key]++
		v[key, count[key]] = $3; mbs[key, count[key]] = $4; allocs[key] = $5
		if (!($1 in seen)) { seen[$1] = 1; cases[++ncases] = $1 }
	}
	END {
		print "| case | toolscope ns/op | MB/s | allocs/op | ollama ns/op | MB/s | allocs/op | ollama / toolscope |"
		print "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
		for (i = 1; i <= ncases; i++) {
			c = cases[i]; t = c SUBSEP "toolscope"; o = c SUBSEP "ollama"
			tn = median(t); on = median(o)
			# MB/s of the median run: the runs are sorted by ns/op.
			tm = mbs[t, int((count[t]+1)/2)]; om = mbs[o, int((count[o]+1)/2)]
			printf "| %s | %.0f | %s | %s | %.0f | %s | %s | %.1fx |\n", c, tn, tm, allocs[t], on, om, allocs[o], on / tn
		}
	}'
}

# dialects is the median of each dialect's runs of BenchmarkDialects.
dialects() {
	awk '$1 ~ /^BenchmarkDialects\// {
		split($1, name, "/"); sub(/-[0-9]+$/, "", name[2])
		for (i = 3; i < NF; i++) {
			if ($(i+1) == "ns/op") ns = $i
			if ($(i+1) == "allocs/op") allocs = $i
		}
		if (!(name[2] in order)) { order[name[2]] = ++n; names[n] = name[2] }
		v[name[2], ++count[name[2]]] = ns; a[name[2]] = allocs
	}
	END {
		print "| dialect | ns/op | allocs/op |"
		print "| --- | ---: | ---: |"
		for (i = 1; i <= n; i++) {
			d = names[i]; c = count[d]
			# An insertion sort: mawk, the awk of Debian, has no asort.
			for (j = 1; j <= c; j++) {
				x = v[d, j] + 0
				for (k = j - 1; k >= 1 && s[k] > x; k--) s[k+1] = s[k]
				s[k+1] = x
			}
			m = c % 2 ? s[(c+1)/2] : (s[c/2] + s[c/2+1]) / 2
			printf "| %s | %.0f | %s |\n", d, m, a[d]
		}
	}' "$raw"
}

cpu=$(grep -m1 '^model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)
# Virtual machines often name the CPU vaguely in /proc/cpuinfo; Go asks
# the processor itself.
gocpu=$(sed -n 's/^cpu: //p' "$raw")
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if ! git diff --quiet HEAD 2>/dev/null; then
	commit="$commit, with uncommitted changes"
fi

{
	cat <<EOF
# Parser benchmarks

Written by \`./streamparser/bench.sh\`; do not edit by hand, run it again.
The other benchmarks have pages of their own: [the history](history-benchmarks.md)
and [the eval harness](eval-benchmarks.md) (its cost per case, and its memory over 10,000 cases).
It runs \`BenchmarkParse\` (in [streamparser/bench_test.go](../streamparser/bench_test.go)):
toolscope's stream parser and Ollama's own
(\`github.com/ollama/ollama/model/parsers\`, \`qwen3-thinking\`) side by side,
on the same replies cut into the same chunks. Every iteration parses a whole
reply and must find its one tool call.

- \`chunk1\`, \`chunk4\`, \`chunk16\`: a realistic reply (thinking, text and one
  \`send_mail\` call, 623 bytes) in chunks of 1, 4 and 16 bytes; a token is
  about 4 bytes, so \`chunk4\` is the case a live model produces.
- \`args16k\`, \`args64k\`, \`args256k\`: a reply whose call writes a file of
  16, 64 and 256 KiB, in 4-byte chunks: how the cost grows with a call's size.

Each figure is the median of $count runs. The last column is Ollama's time
over toolscope's: how many times faster toolscope is.

$(table)

- date: $(date -u '+%Y-%m-%d %H:%M UTC')
- Go: $(go version | sed 's/^go version //')
- CPU: ${cpu:-unknown} (as Go reports it: ${gocpu:-unknown})
- cores: $(getconf _NPROCESSORS_ONLN 2>/dev/null || echo unknown)
- load average before the run: $load
- commit: $commit
- command: \`COUNT=$count ./streamparser/bench.sh\`, which runs
  \`$(shown "${gotest[@]}")\`

## Every dialect

\`BenchmarkDialects\` parses the same reply with its call written in each
dialect (by the dialect's own writer), in 4-byte chunks; Ollama's parser
has no counterpart for most of them, so toolscope's runs alone. The median
of $count runs:

$(dialects)

## Reading the table

toolscope's parser allocates nothing per chunk: its allocations per reply
are the finished call (its text, the \`Call\`, its arguments), whatever the
chunk size. It reads each byte of a call a fixed number of times, so its
cost grows linearly with the size of the arguments. Ollama's parser
searches its whole buffer again for \`</tool_call>\` at every chunk, so its
cost grows with the square of a call's size: the ratio widens from
\`args16k\` to \`args256k\`.

Figures move with the machine and with whatever else runs on it (the load
average above); compare runs made on the same machine, for instance with
\`benchstat\` on the raw output below.

<details><summary>Raw output of go test</summary>

\`\`\`
$(cat "$raw")
\`\`\`

</details>
EOF
} >"$out"
echo "bench.sh: wrote $out" >&2
