#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The benchmark report: from the BENCH lines of a guest's results, a
# markdown table (bench.md) and the same as JSON (bench.json), each row with
# the ratios ttypair/pty and ttypair/socat, and the targets of the project
# checked against them; and its charts (bench-charts.sh).
#   scripts/bench-report.sh RESULTS KERNEL ACCELERATOR OUTDIR
set -eu
RESULTS=$1 KERNEL=$2 ACCEL=$3 OUT=$4
mkdir -p "$OUT"
DATE=$(date -u +%Y-%m-%d)
grep -q '^BENCH ' "$RESULTS" || { echo "no BENCH lines in $RESULTS" >&2; exit 1; }

# One row per section/parameter/metric: the value of each transport
grep '^BENCH [a-z]' "$RESULTS" | grep -v '^BENCH done' | tr -d '\r' | awk \
	-v md="$OUT/bench.md" -v json="$OUT/bench.json" \
	-v date="$DATE" -v kernel="$KERNEL" -v accel="$ACCEL" '
function label(sec, p, m) {
	if (sec == "oneway") return "one way, " p "-byte writes (MiB/s)"
	if (sec == "bidir") return "both ways at once, " p "-byte writes (MiB/s)"
	if (sec == "latency") return "1-byte round trip, " (m == "median_us" ? "median" : "99th percentile") " (us)"
	if (sec == "pairs") return p " pair" (p > 1 ? "s" : "") " streaming at once, 4 KiB writes (MiB/s)"
	if (sec == "baud") return p " baud, " (m == "rate_error_pct" ? "received rate" : "tcdrain time") " vs ideal (% error)"
	if (sec == "scale") {
		if (m == "create_ms") return "create " p " pair" (p > 1 ? "s" : "") " in configfs (ms)"
		if (m == "remove_ms") return "remove " p " pair" (p > 1 ? "s" : "") " (ms)"
		if (m == "idle_pair_bytes") return "kernel memory per idle pair, " p " made (bytes)"
		if (m == "open_pair_bytes") return "kernel memory per open pair (both ends), " p " open (bytes)"
		if (m == "capped_to") return "pairs the scale test could make of " p
	}
	return sec " " p " " m
}
function num(v) { return v == "" ? "" : sprintf("%.4g", v) }
function ratio(a, b) { return (a == "" || b == "" || b + 0 == 0) ? "" : sprintf("%.2f", a / b) }
{
	key = $2 SUBSEP $4 SUBSEP $5
	if (!(key in seen)) { seen[key] = 1; order[n++] = key }
	val[key, $3] = $6
}
END {
	printf "| measurement | ttypair | pty | socat | ttypair/pty | ttypair/socat |\n|---|---:|---:|---:|---:|---:|\n" > md
	printf "{\n  \"date\": \"%s\",\n  \"kernel\": \"%s\",\n  \"accelerator\": \"%s\",\n  \"rows\": [", date, kernel, accel > json
	for (i = 0; i < n; i++) {
		split(order[i], k, SUBSEP)
		t = val[order[i], "ttypair"]; p = val[order[i], "pty"]; s = val[order[i], "socat"]
		printf "| %s | %s | %s | %s | %s | %s |\n", label(k[1], k[2], k[3]), num(t), num(p), num(s), ratio(t, p), ratio(t, s) > md
		printf "%s\n    {\"section\": \"%s\", \"parameter\": %s, \"metric\": \"%s\", \"ttypair\": %s, \"pty\": %s, \"socat\": %s, \"ttypair_per_pty\": %s, \"ttypair_per_socat\": %s}", \
			i ? "," : "", k[1], k[2], k[3], t == "" ? "null" : t, p == "" ? "null" : p, s == "" ? "null" : s, \
			ratio(t, p) == "" ? "null" : ratio(t, p), ratio(t, s) == "" ? "null" : ratio(t, s) > json
	}
	printf "\n  ]\n}\n" > json
}'

# The targets, from the same numbers
get() { awk -v k="BENCH $1 $2 $3 $4" 'index($0, k " ") == 1 { print $NF }' "$RESULTS" | tr -d '\r'; }
check() {	# check TEXT EXPR(awk, over a b): one line of the targets list
	if awk -v a="$2" -v b="$3" "BEGIN { exit !($4) }"; then r=met; else r=missed; fi
	printf -- '- %s: %s (%s)\n' "$1" "$r" "$5"
}
{
	echo
	echo "Targets ($DATE, kernel $KERNEL, QEMU $ACCEL):"
	echo
	t=$(get oneway ttypair 4096 mib_s) p=$(get oneway pty 4096 mib_s) s=$(get oneway socat 4096 mib_s)
	check "throughput at 4 KiB writes >= 1.0x pty" "$t" "$p" "b > 0 && a / b >= 1.0" \
		"$(awk -v a="$t" -v b="$p" 'BEGIN { printf "%.2fx", a / b }')"
	check "throughput at 4 KiB writes >= 3x socat" "$t" "$s" "b > 0 && a / b >= 3.0" \
		"$(awk -v a="$t" -v b="$s" 'BEGIN { printf "%.2fx", a / b }')"
	t=$(get latency ttypair 1 median_us) p=$(get latency pty 1 median_us)
	check "round-trip latency <= 1.0x pty (median)" "$t" "$p" "b > 0 && a / b <= 1.0" \
		"$(awk -v a="$t" -v b="$p" 'BEGIN { printf "%.2fx", a / b }')"
	worst=$(grep '^BENCH baud ttypair' "$RESULTS" | awk '{ v = $NF < 0 ? -$NF : $NF; if (v > w) w = v } END { printf "%.2f", w }')
	check "baud emulation within 1% of ideal" "$worst" 0 "a < 1.0" "worst ${worst}%"
	c=$(get scale ttypair 1024 create_ms)
	if [ -n "$c" ]; then
		check "1024 pairs created in under 1 s" "$c" 0 "a < 1000" "${c} ms"
	else
		echo "- 1024 pairs created in under 1 s: not measured (smoke run or fewer pairs allowed)"
	fi
} > "$OUT/targets.md"
cat "$OUT/bench.md" "$OUT/targets.md"
sh "$(dirname "$0")/bench-charts.sh" "$RESULTS" "$KERNEL" "$OUT" > /dev/null
