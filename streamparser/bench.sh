#!/usr/bin/env bash
# Runs BenchmarkParse (toolscope's parser and Ollama's own, on the same
# replies and chunks) and prints the README's table of medians.
#   COUNT=10 ./streamparser/bench.sh      more runs per benchmark (default 5)
set -euo pipefail
cd "$(dirname "$0")"

go test -run '^$' -bench '^BenchmarkParse$' -benchmem -count "${COUNT:-5}" . |
	awk '$1 ~ /^BenchmarkParse\// {
		split($1, name, "/"); sub(/-[0-9]+$/, "", name[3])
		for (i = 3; i < NF; i++) {
			if ($(i+1) == "ns/op") ns = $i
			if ($(i+1) == "MB/s") mbs = $i
			if ($(i+1) == "allocs/op") allocs = $i
		}
		if (!(name[3] in order)) order[name[3]] = ++n
		print order[name[3]], name[3], name[2], ns, mbs, allocs
	}' |
	sort -k1,1n -k3,3 -k4,4g | cut -d" " -f2- |
	awk '
	function median(key,   n) { n = count[key]; return n % 2 ? v[key, (n+1)/2] : (v[key, n/2] + v[key, n/2+1]) / 2 }
	{
		key = $1 SUBSEP $2; count[key]++
		v[key, count[key]] = $3; mbs[key, count[key]] = $4; allocs[key] = $5
		if (!($1 in seen)) { seen[$1] = 1; cases[++ncases] = $1 }
	}
	END {
		print "| case | toolscope ns/op | MB/s | allocs/op | ollama ns/op | MB/s | allocs/op | speed-up |"
		print "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
		for (i = 1; i <= ncases; i++) {
			c = cases[i]; t = c SUBSEP "toolscope"; o = c SUBSEP "ollama"
			tn = median(t); on = median(o)
			# MB/s of the median run: the runs are sorted by ns/op.
			tm = mbs[t, int((count[t]+1)/2)]; om = mbs[o, int((count[o]+1)/2)]
			printf "| %s | %.0f | %s | %s | %.0f | %s | %s | %.1fx |\n", c, tn, tm, allocs[t], on, om, allocs[o], on / tn
		}
	}'
