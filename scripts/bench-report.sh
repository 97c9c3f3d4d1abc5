#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The benchmark report: from the BENCH lines of a guest's results, a
# markdown table (bench.md) and the same as JSON (bench.json), each row with
# the ratios ttypair/pty and ttypair/socat, and the targets of the project
# checked against them; and its charts (bench-charts.sh). A value measured
# in several runs is their median, with the smallest and the largest run in
# brackets. ttypair/pty is, where the guest measured it so ("paired" lines),
# the median of the ratios of runs made back to back, with the smallest and
# largest ratio; otherwise the ratio of the medians. With PREVIOUS (the
# results of the bench before), each row also shows that run's ttypair/pty,
# so that the noise from run to run shows.
#   scripts/bench-report.sh RESULTS KERNEL ACCELERATOR OUTDIR [PREVIOUS]
set -eu
RESULTS=$1 KERNEL=$2 ACCEL=$3 OUT=$4 PREVIOUS=${5:-}
mkdir -p "$OUT"
DATE=$(date -u +%Y-%m-%d)
grep -q '^BENCH ' "$RESULTS" || { echo "no BENCH lines in $RESULTS" >&2; exit 1; }

# One row per section/parameter/metric: the value of each transport
{ [ -z "$PREVIOUS" ] || grep '^BENCH [a-z]' "$PREVIOUS" | sed 's/^BENCH/PREV/'
  grep '^BENCH [a-z]' "$RESULTS"; } | grep -v '^BENCH done' | tr -d '\r' | awk \
	-v md="$OUT/bench.md" -v json="$OUT/bench.json" -v prev="$PREVIOUS" \
	-v date="$DATE" -v kernel="$KERNEL" -v accel="$ACCEL" '
function label(sec, p, m) {
	if (sec == "oneway") return "one way, " p "-byte writes (MiB/s)"
	if (sec == "bidir") return "both ways at once, " p "-byte writes (MiB/s)"
	if (sec == "latency") return "1-byte round trip, " (m == "median_us" ? "median" : "99th percentile") " (us)"
	if (sec == "pairs") return p " pair" (p > 1 ? "s" : "") " streaming at once, 4 KiB writes (MiB/s)"
	if (sec == "baud") return p " baud, " (m == "rate_error_pct" ? "received rate" : "tcdrain time") " vs ideal (% error)"
	if (sec == "idle") {
		if (m == "wakeups_per_s") return p " full pairs, reader idle: wake-ups of their writers and pollers (per s)"
		if (m == "timer_expiries_per_s") return p " full pairs, reader idle: runs of the ttypair timers (per s)"
	}
	if (sec == "baudscale") {
		if (m == "cpu_pct") return "256 pairs at " p " baud, emulated: guest CPU time (% of a CPU)"
		if (m == "softirq_cpu_pct") return "256 pairs at " p " baud, emulated: softirq time, where the timers run (% of a CPU)"
		if (m == "rate_error_pct") return "256 pairs at " p " baud, emulated: received rate vs ideal, median pair (% error)"
	}
	if (sec == "bus") {
		if (m == "sent_mib_s") return "bus of " p " ports, one sender, 4 KiB writes: sent (MiB/s)"
		if (m == "received_mib_s") return "bus of " p " ports, one sender: received by all listeners together (MiB/s)"
		if (m == "listener_cost_pct") return "bus of " p " ports: time each listener beyond the first adds (% of a 2-port bus)"
	}
	if (sec == "scale") {
		if (m == "create_ms") return "create " p " pair" (p > 1 ? "s" : "") " in configfs (ms)"
		if (m == "remove_ms") return "remove " p " pair" (p > 1 ? "s" : "") " (ms)"
		if (m == "idle_pair_bytes") return "kernel memory per idle pair, " p " made at once (bytes)"
		if (m == "open_pair_bytes") return "kernel memory per open pair (both ends), " p " open at once (bytes)"
		if (m == "capped_to") return "pairs the scale test could make of " p
	}
	return sec " " p " " m
}
function num(v) { return v == "" ? "" : sprintf("%.4g", v) }
function cell(k, t) {
	if (val[k, t] == "") return ""
	if (lo[k, t] == "") return num(val[k, t])
	return num(val[k, t]) " (" num(lo[k, t]) "-" num(hi[k, t]) ")"
}
function ratio(a, b) { return (a == "" || b == "" || b + 0 == 0) ? "" : sprintf("%.2f", a / b) }
function jnum(v) { return v == "" ? "null" : v }
$1 == "PREV" { pval[$2 SUBSEP $4 SUBSEP $5, $3] = $6; next }
function tp(k0, t, p) { return val[k0, "paired"] != "" ? sprintf("%.2f", val[k0, "paired"]) : ratio(t, p) }
function tpcell(k0, t, p) {
	if (val[k0, "paired"] == "" || lo[k0, "paired"] == "") return tp(k0, t, p)
	return sprintf("%.2f (%.2f-%.2f)", val[k0, "paired"], lo[k0, "paired"], hi[k0, "paired"])
}
{
	m = $5
	if (m ~ /_min$/) { sub(/_min$/, "", m); lo[$2 SUBSEP $4 SUBSEP m, $3] = $6; next }
	if (m ~ /_max$/) { sub(/_max$/, "", m); hi[$2 SUBSEP $4 SUBSEP m, $3] = $6; next }
	key = $2 SUBSEP $4 SUBSEP $5
	if (!(key in seen)) { seen[key] = 1; order[n++] = key }
	val[key, $3] = $6
}
END {
	printf "| measurement | ttypair | pty | socat | ttypair/pty | ttypair/socat |%s\n|---|---:|---:|---:|---:|---:|%s\n", \
		prev != "" ? " ttypair/pty, bench before |" : "", prev != "" ? "---:|" : "" > md
	printf "{\n  \"date\": \"%s\",\n  \"kernel\": \"%s\",\n  \"accelerator\": \"%s\",\n  \"rows\": [", date, kernel, accel > json
	for (i = 0; i < n; i++) {
		k0 = order[i]
		split(k0, k, SUBSEP)
		t = val[k0, "ttypair"]; p = val[k0, "pty"]; s = val[k0, "socat"]
		pr = pval[k0, "paired"] != "" ? sprintf("%.2f", pval[k0, "paired"]) : ratio(pval[k0, "ttypair"], pval[k0, "pty"])
		printf "| %s | %s | %s | %s | %s | %s |%s\n", label(k[1], k[2], k[3]), cell(k0, "ttypair"), cell(k0, "pty"), \
			cell(k0, "socat"), tpcell(k0, t, p), ratio(t, s), prev != "" ? " " pr " |" : "" > md
		printf "%s\n    {\"section\": \"%s\", \"parameter\": %s, \"metric\": \"%s\"", i ? "," : "", k[1], k[2], k[3] > json
		split("ttypair pty socat", ts, " ")
		for (j = 1; j <= 3; j++)
			printf ", \"%s\": %s, \"%s_min\": %s, \"%s_max\": %s", ts[j], jnum(val[k0, ts[j]]), \
				ts[j], jnum(lo[k0, ts[j]]), ts[j], jnum(hi[k0, ts[j]]) > json
		printf ", \"ttypair_per_pty\": %s, \"ttypair_per_pty_min\": %s, \"ttypair_per_pty_max\": %s", \
			jnum(tp(k0, t, p)), jnum(lo[k0, "paired"]), jnum(hi[k0, "paired"]) > json
		printf ", \"ttypair_per_socat\": %s, \"ttypair_per_pty_before\": %s}", jnum(ratio(t, s)), jnum(pr) > json
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
	# every throughput row: the worst ttypair/pty, run by run where measured so
	worst=$(grep -E '^BENCH (oneway|bidir|pairs) (ttypair|pty|paired) [0-9]+ mib_s ' "$RESULTS" | tr -d '\r' |
		awk '{ v[$2 " " $4, $3] = $6; k[$2 " " $4] = 1 }
		     END { w = 1e9
			   for (r in k) {
				q = v[r, "paired"] != "" ? v[r, "paired"] : v[r, "pty"] > 0 ? v[r, "ttypair"] / v[r, "pty"] : 1e9
				if (q < w) { w = q; wr = r }
			   }
			   printf "%.2f %s\n", w, wr }')
	check "every throughput row >= 0.95x pty (median of the run-by-run ratios)" "${worst%% *}" 0 "a >= 0.95" \
		"worst ${worst%% *}x: ${worst#* }"
	t=$(get oneway ttypair 4096 mib_s) s=$(get oneway socat 4096 mib_s)
	check "throughput at 4 KiB writes >= 3x socat" "$t" "$s" "b > 0 && a / b >= 3.0" \
		"$(awk -v a="$t" -v b="$s" 'BEGIN { printf "%.2fx", a / b }')"
	t=$(get latency ttypair 1 median_us) p=$(get latency pty 1 median_us)
	q=$(get latency paired 1 median_us)
	[ -n "$q" ] || q=$(awk -v a="$t" -v b="$p" 'BEGIN { print (b > 0 ? a / b : 1e9) }')
	check "round-trip latency <= 1.0x pty (median of the batch-by-batch ratios)" "$q" 0 "a <= 1.0" \
		"$(awk -v a="$q" 'BEGIN { printf "%.4fx", a }')"
	if grep -q '^BENCH idle ttypair ' "$RESULTS"; then
		i=$(grep -E '^BENCH idle ttypair [0-9]+ (wakeups|timer_expiries)_per_s ' "$RESULTS" |
			tr -d '\r' | awk '{ s += $NF } END { print s + 0 }')
		check "no wake-ups and no timers while full pairs sit idle" "$i" 0 "a == 0" "${i} per s"
	else
		echo "- no wake-ups and no timers while full pairs sit idle: not measured in this run"
	fi
	if grep -q '^BENCH baud ttypair ' "$RESULTS"; then
		worst=$(grep '^BENCH baud ttypair' "$RESULTS" | awk '{ v = $NF < 0 ? -$NF : $NF; if (v > w) w = v } END { printf "%.2f", w }')
		check "baud emulation within 1% of ideal" "$worst" 0 "a < 1.0" "worst ${worst}%"
	else
		echo "- baud emulation within 1% of ideal: not measured in this run"
	fi
	c=$(get scale ttypair 1024 create_ms)
	if [ -n "$c" ]; then
		check "1024 pairs created in under 1 s" "$c" 0 "a < 1000" "${c} ms"
	else
		echo "- 1024 pairs created in under 1 s: not measured (smoke run or fewer pairs allowed)"
	fi
} > "$OUT/targets.md"
cat "$OUT/bench.md" "$OUT/targets.md"
sh "$(dirname "$0")/bench-charts.sh" "$RESULTS" "$KERNEL" "$OUT" > /dev/null
