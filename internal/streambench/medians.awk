# medians.awk reads `go test -bench` output, the same benchmarks run many
# times, and prints the median of each metric of each benchmark, a line
# each: name, unit, median, tab-separated, in the order first seen. The
# name loses its -GOMAXPROCS suffix. Both bench.sh scripts (store's and
# telemetry's) make their tables from these lines.
$1 ~ /^Benchmark/ {
	name = $1
	sub(/-[0-9]+$/, "", name)
	for (i = 3; i < NF; i += 2) {
		k = name SUBSEP $(i+1)
		if (!(k in count)) order[++nkeys] = k
		values[k, ++count[k]] = $i
	}
}

# An insertion sort: mawk, the awk of Debian, has no asort.
function median(k,   c, j, l, x, s) {
	c = count[k]
	for (j = 1; j <= c; j++) {
		x = values[k, j] + 0
		for (l = j - 1; l >= 1 && s[l] > x; l--) s[l+1] = s[l]
		s[l+1] = x
	}
	return c % 2 ? s[(c+1)/2] : (s[c/2] + s[c/2+1]) / 2
}

END {
	for (i = 1; i <= nkeys; i++) {
		split(order[i], key, SUBSEP)
		printf "%s\t%s\t%s\n", key[1], key[2], median(order[i])
	}
}
