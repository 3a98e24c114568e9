#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kiwi's connection benchmark ("make bench"): one VM run on the benchmark
# kernel (tests/bench.config: no debugging options, Linux's rdma_cm, iw_cm
# and siw as modules) that measures the raw TCP baseline, kiwi and Linux's
# stack with the same scenarios (bench/vm-init), then prints a table of
# the numbers and the ratios kiwi/TCP and kiwi/Linux, saved as JSON in
# $BUILD/bench/results.json.
#
# env: KIWI_BENCH_N          connections per rate run of the main
#                            scenario, and per condition of the others
#                            (default 1000)
#      KIWI_BENCH_MAIN_ROUNDS  rounds of the main scenario: a rate run of
#                            each stack at each concurrency, the stacks in
#                            turn (default 3)
#      KIWI_BENCH_IDLE       idle live connections (default 10000)
#      KIWI_BENCH_LISTENERS  extra listeners (default 1024)
#      KIWI_BENCH_ROUNDS     rounds with and without idle connections or
#                            extra listeners, KIWI_BENCH_N / rounds
#                            connections each (default 5)
#      KIWI_BENCH_SETTLE     seconds from the start of the hold of idle
#                            connections to the rounds with them
#                            (default 40: softiw's first keepalives come
#                            20-50 s after a connection opens)
#      KIWI_BENCH_KEEPALIVE_AB  1: kiwi's idle rounds once more without
#                            softiw's keepalive (default 0)
#      KIWI_BENCH_STACKS     stacks to measure (default "tcp kiwi linux")
#      KIWI_BENCH_CONNECT    0: skip the connection scenarios (default 1)
#      KIWI_BENCH_DATAPATH   0: skip the data-path scenario (default 1)
#      KIWI_BENCH_DP_MS      milliseconds each data-path transfer runs
#                            (default 3000)
#      KIWI_BENCH_DP_SIZES   message sizes of the data-path transfers
#                            (default "4096 65536 1048576")
#      KIWI_BENCH_DP_DEPTH   requests in flight per connection (default 16)
#      KIWI_BENCH_DP_CONNS   connections a transfer runs at once, each
#                            count in turn (default "1 4")
#      KIWI_BENCH_TIMEOUT    seconds the VM may run (default 3600)
#      KIWI_BENCH_PROFILE    1: the profiling kernel, tests/bench.config plus
#                            tests/profile.config (flavour "profile"), in
#                            a VM whose vCPUs take turns on one host thread
#      KIWI_BENCH_APPEND     more kernel command line for the VM, for A/B
#                            runs of boot options (e.g. "tsc=reliable")
#      KIWI_BENCH_SCRIPT     a shell file the VM sources after its setup
#                            instead of the standard scenarios (e.g.
#                            bench/profile.sh); its KIWI- lines are printed
#                            instead of the table, each rate result
#                            followed by a KIWI-PERCONN line (host CPU,
#                            and instructions if counted, per connection)
#      KIWI_BENCH_INSNS      1: count the guest instructions each timed
#                            command executes (scripts/bench_insns.c, a
#                            QEMU TCG plugin): a line per concurrency in
#                            the table, and for the idle and listener
#                            rounds against their rounds without, with
#                            the VM's host ns per guest instruction
#                            around the hold. Counting slows the VM
#                            about 1.8x, so the timed lines of such a
#                            run are not comparable with a run without
#                            (default 0).
#                            prof: also per block of code, for a script's
#                            snap and symbols (bench/vm-init); the script's
#                            lines are followed by scripts/bench_prof.py's
#                            tables
set -euo pipefail
. "$(dirname "$0")/lib.sh"

t0=$(date +%s)
step "benchmark kernel"
frag=$top/tests/bench.config
flavour=bench
accel=tcg
if [ "${KIWI_BENCH_PROFILE:-0}" = 1 ]; then
	flavour=profile
	# The profiler patches kernel text while both vCPUs run. With one
	# host thread per vCPU, TCG let a vCPU run a patch's int3 after the
	# patch was undone, and the kernel died of it; one thread that runs
	# the vCPUs in turn leaves no stale translation to run.
	accel=tcg,thread=single
	frag=$build/profile/profile.config
	mkdir -p "$build/profile"
	cat "$top/tests/bench.config" "$top/tests/profile.config" >"$frag"
fi
kdir=$(bash "$top/scripts/test-kernel.sh" "$frag")
echo "ok: $kdir"

step "modules against the benchmark kernel (W=1 C=2)"
out=$build/${flavour}k
build_modules "$out" "$kdir"
build_bench "$out" "$kdir"
echo "ok: no warnings"

step "VM: initramfs"
vm=$build/$flavour
mkdir -p "$vm"
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,dev,etc,proc,sys,tmp,run,lib/kiwi}
cp /bin/busybox "$root/bin/busybox"
install -m 0755 "$top/bench/vm-init" "$root/init"
install -m 0644 "$top/tests/vm/testnet.sh" "$root/etc/kiwi-testnet.sh"
cat >"$root/etc/kiwi-bench.conf" <<CONF
BENCH_N=${KIWI_BENCH_N:-1000}
BENCH_IDLE=${KIWI_BENCH_IDLE:-10000}
BENCH_LISTENERS=${KIWI_BENCH_LISTENERS:-1024}
BENCH_ROUNDS=${KIWI_BENCH_ROUNDS:-5}
BENCH_MAIN_ROUNDS=${KIWI_BENCH_MAIN_ROUNDS:-3}
BENCH_SETTLE=${KIWI_BENCH_SETTLE:-40}
BENCH_KEEPALIVE_AB=${KIWI_BENCH_KEEPALIVE_AB:-0}
BENCH_STACKS="${KIWI_BENCH_STACKS:-tcp kiwi linux}"
BENCH_CONNECT=${KIWI_BENCH_CONNECT:-1}
BENCH_DATAPATH=${KIWI_BENCH_DATAPATH:-1}
BENCH_DP_MS=${KIWI_BENCH_DP_MS:-3000}
BENCH_DP_SIZES="${KIWI_BENCH_DP_SIZES:-4096 65536 1048576}"
BENCH_DP_DEPTH=${KIWI_BENCH_DP_DEPTH:-16}
BENCH_DP_CONNS="${KIWI_BENCH_DP_CONNS:-1 4}"
CONF
if [ -n "${KIWI_BENCH_SCRIPT:-}" ]; then
	install -m 0644 "$KIWI_BENCH_SCRIPT" "$root/etc/kiwi-bench.script"
fi
find "$out" -name 'kiwi_*.ko' -exec cp {} "$root/lib/kiwi/" \;
# Linux's RDMA modules, with modules.dep for busybox modprobe.
cp -a "$kdir/modroot/lib/modules" "$root/lib/"
rdma=$(command -v rdma) || die "iproute2's rdma tool not found"
copy_bin "$root" "$rdma"
# The profiling VM gets the host's perf if there is one: its cpu-clock
# sampling needs no PMU, which TCG does not emulate.
if [ "$flavour" = profile ] && perf=$(command -v perf); then
	copy_bin "$root" "$perf"
fi
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$vm/initramfs.cpio.gz"
echo "ok"

what="QEMU TCG, 2 vCPUs"
[ "$accel" = tcg ] || what="$what on one host thread"
plugin=()
snaps=()
rm -f "$vm/console.log" "$vm/results.log" "$vm/cpu.log" "$vm/insns.log" \
	"$vm"/prof.*
case ${KIWI_BENCH_INSNS:-0} in
0) ;;
1|prof)
	step "QEMU plugin: guest instruction counts"
	gcc -O2 -Wall -Werror -shared -fPIC -fvisibility=hidden -pthread \
		-o "$vm/bench_insns.so" "$top/scripts/bench_insns.c"
	args=out=$vm/insns.log
	if [ "$KIWI_BENCH_INSNS" = prof ]; then
		args=$args,prof=$vm/prof
		snaps=("$vm/prof")
	fi
	plugin=(-plugin "$vm/bench_insns.so,$args")
	what="$what, instructions counted"
	echo "ok"
	;;
*) die "KIWI_BENCH_INSNS: 0, 1 or prof, not '$KIWI_BENCH_INSNS'" ;;
esac
step "VM: run ($what)"
timeout "${KIWI_BENCH_TIMEOUT:-3600}" qemu-system-x86_64 -accel "$accel" -smp 2 \
	-m 3072 -nic none -no-reboot -display none -monitor none "${plugin[@]}" \
	-kernel "$kdir/arch/x86/boot/bzImage" -initrd "$vm/initramfs.cpio.gz" \
	-append "console=ttyS0 loglevel=4 panic=-1 ${KIWI_BENCH_APPEND:-}" \
	-chardev file,id=con,path="$vm/console.log" -serial chardev:con \
	-chardev file,id=res,path="$vm/results.log" -serial chardev:res &
qemu=$!
# Progress (each finished command) and QEMU's CPU time at each line.
python3 "$top/scripts/bench_watch.py" $qemu "$vm/results.log" "$vm/cpu.log" \
	"${snaps[@]}"
wait $qemu || die "the VM did not finish (timeout or QEMU error; log: $vm/console.log)"

step "results"
if [ -n "${KIWI_BENCH_SCRIPT:-}" ]; then
	python3 "$top/scripts/bench_report.py" --lines "$vm/results.log" \
		"$vm/cpu.log" "$vm/insns.log"
	if [ ${#snaps[@]} -gt 0 ] && grep -q 'KIWI-SNAP' "$vm/results.log"; then
		python3 "$top/scripts/bench_prof.py" "$vm/results.log" \
			"$vm/prof" || echo "bench: no instruction profile"
	fi
	if grep -E 'BUG:|WARNING:|Oops|Kernel panic|Call Trace:' "$vm/console.log"; then
		die "the kernel complained (log: $vm/console.log)"
	fi
	grep -q 'KIWI-DONE' "$vm/results.log" || die "the script did not finish"
	echo "make bench: $(($(date +%s) - t0)) s"
	exit 0
fi
python3 "$top/scripts/bench_report.py" "$vm/results.log" "$vm/console.log" \
	"$vm/results.json" "$vm/cpu.log" "$what" "$vm/insns.log"
echo "make bench: $(($(date +%s) - t0)) s"
