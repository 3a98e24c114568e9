# SPDX-License-Identifier: GPL-2.0
#
# "make bench-profile": sourced by bench/vm-init (as /etc/kiwi-bench.script)
# on the profiling kernel (tests/profile.config). For each stack of
# BENCH_STACKS: a warm-up, then rate runs at concurrency 1 and 16 of
# BENCH_N connections, each measured three ways:
#
#   KIWI-CPU stack c=C us_per_conn=U rate=R   CPU time of both vCPUs
#       (/proc/stat: user, system, irq, softirq) per connection, profiler
#       off;
#   KIWI-PROF stack c=C incl FUNC HITS US      top functions by time
#       including callees, sleep excluded, both CPUs summed;
#   KIWI-PROF stack c=C self FUNC HITS US      top functions by own time.
#
# The profiler's hooks slow every function down: compare the profiled
# times with each other, and the CPU line (taken without them) across
# runs. BENCH_PROF_TOP (default 60) sets how many functions are shown.

tr=/sys/kernel/tracing
mount -t tracefs nodev $tr 2>/dev/null

# Busy and total ticks of all CPUs (USER_HZ), as "busy total".
cpu_ticks() {
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9,
			   $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat
}

# One rate run without the profiler: CPU microseconds per connection.
cpu_rate() {
	set -- "$1" "$2" $(cpu_ticks)
	cmd rate "$1" $port "$2" "$BENCH_N" || return
	res=$(cat "$params/result")
	set -- "$1" "$2" "$3" $(cpu_ticks)	# $3 busy before, $4 after
	ns=$(echo "$res" | sed 's/.*"elapsed_ns":\([0-9]*\).*/\1/')
	say "CPU $1 c=$2 us_per_conn=$((($4 - $3) * 10000 / BENCH_N))" \
	    "rate=$((BENCH_N * 1000000 / (ns / 1000)))"
}

# Sum trace_stat/function* over CPUs; print the top lines by time.
prof_dump() {
	cat $tr/trace_stat/function* | awk '
		$2 ~ /^[0-9]+$/ && $4 == "us" { hit[$1] += $2; t[$1] += $3 }
		END { for (f in t) printf "%d %s %d\n", t[f], f, hit[f] }' |
		sort -rn | head -n "${BENCH_PROF_TOP:-60}" |
		while read -r us f hits; do
			say "PROF $1 $f $hits $us"
		done
}

# One profiled rate run; $3 is 1 for times including callees.
prof_rate() {
	echo "$3" >$tr/options/graph-time
	echo 0 >$tr/options/sleep-time
	echo 0 >$tr/function_profile_enabled
	echo 1 >$tr/function_profile_enabled
	cmd rate "$1" $port "$2" "$BENCH_N"
	echo 0 >$tr/function_profile_enabled
	if [ "$3" = 1 ]; then
		prof_dump "$1 c=$2 incl"
	else
		prof_dump "$1 c=$2 self"
	fi
}

for s in $BENCH_STACKS; do
	cmd serve "$s" $port 1 || continue
	cmd rate "$s" $port 16 "$BENCH_N"	# warm-up: caches, neighbours
	for c in 1 16; do
		cpu_rate "$s" $c
		prof_rate "$s" $c 1
		prof_rate "$s" $c 0
	done
	cmd unserve "$s"
	port=$((port + 1))
done
