#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kiwi's one test command ("make check", also .ci/run): static checks, the
# debug test kernel (built once, cached), kiwi and its KUnit modules built
# against it, then every test module run in a QEMU VM. Ends with the line
# "N passed, N failed"; exits non-zero on the first problem.
#
# env: SUITES              test modules to run, space- or comma-separated
#                          globs (a suite name selects the module that holds
#                          it); default: every kiwi_*_test module, then
#                          "samples" (make demo's VM on the test kernel,
#                          one case), "teardown" (kiwi taken apart under
#                          live traffic, scripts/teardown-init, one
#                          case), "nvme" (Linux's NVMe-oF RDMA host
#                          and target over kiwi, a case per step) and
#                          "dkms" (dkms build against Debian's headers, and
#                          its modules loaded on Debian's stock kernel in a
#                          VM: two cases, scripts/dkms.sh)
#      KIWI_KIT_RUNS       the conformance kit's runs (default "loop softiw")
#      KIWI_SKIP_STATIC=1  skip the static checks (quick iteration)
#      KIWI_SUITE_TIMEOUT  seconds a test module may run (default 600;
#                          kiwi_softiw_test takes about 150 under TCG
#                          on an idle machine, twice that on a busy one)
#      KIWI_VM_CPUS        vCPUs of the test module VMs (default 2; make
#                          stress: 4)
#      KIWI_BOOT_TIMEOUT   seconds a VM may take to boot (default 180)
#      KIWI_CACHE          where the test kernel is cached (/var/cache/kiwi)
#      KIWI_MANIFEST       the cases the VMs must report (tests/manifest)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

t0=$(date +%s)
if [ "${KIWI_SKIP_STATIC:-0}" != 1 ]; then
	bash "$top/scripts/static.sh"
fi

step "test kernel"
kdir=$(bash "$top/scripts/test-kernel.sh")
echo "ok: $kdir"

step "modules against the test kernel (W=1 C=2)"
out=$build/testk
build_modules "$out" "$kdir"
echo "ok: no warnings"

step "Linux's NVMe-oF RDMA host and target against kiwi and the test kernel"
build_ulps "$out" "$kdir" "$(bash "$top/scripts/test-kernel.sh" --source)" \
	'nvme-*'

# Test modules, in run order; harness self-tests only when asked for.
mapfile -t all < <(cd "$out" && find tests -name 'kiwi_*.ko' |
	sed 's|.*/||; s|\.ko$||' | grep -v '^kiwi_testlib$\|^kiwi_loop$' | sort)
selected=
set -f	# SUITES holds globs for the module names, not for files here
for m in "${all[@]}"; do
	if [ -z "${SUITES:-}" ]; then
		case $m in kiwi_harness_*) continue ;; esac
		selected="$selected $m"
		continue
	fi
	for g in ${SUITES//,/ }; do
		# shellcheck disable=SC2254
		case $m in $g) selected="$selected $m"; break ;; esac
		case $g in ${m%_test} | ${m%_test}_*) selected="$selected $m"; break ;; esac
	done
done
# The sample ULPs (make demo's VM on the debug test kernel), NVMe-oF and
# the DKMS package.
samples=0 teardown=0 nvme=0 dkms=0
if [ -z "${SUITES:-}" ]; then
	samples=1 teardown=1 nvme=1 dkms=1
else
	for g in ${SUITES//,/ }; do
		# shellcheck disable=SC2053
		if [[ samples == $g ]]; then samples=1; fi
		# shellcheck disable=SC2053
		if [[ teardown == $g ]]; then teardown=1; fi
		# shellcheck disable=SC2053
		if [[ nvme == $g ]]; then nvme=1; fi
		# shellcheck disable=SC2053
		if [[ dkms == $g ]]; then dkms=1; fi
	done
fi
set +f
[ -n "$selected" ] || [ "$samples" = 1 ] || [ "$teardown" = 1 ] ||
	[ "$nvme" = 1 ] ||
	[ "$dkms" = 1 ] ||
	die "SUITES='${SUITES:-}' selects no test module"

# The interoperability suite runs in a VM of its own: it needs Linux's siw
# and rdma-core's tools in the initramfs, and siw's own lockdep reports
# (tests/expected-splats, "may") would otherwise turn lockdep off for
# kiwi's suites. It starts ucmatose once per case, each start taking
# seconds under TCG: unless told otherwise, it gets 900 s instead of 300.
kiwi_modules="kiwi_iwcm kiwi_rdmacm kiwi_softiw kiwi_testlib"
rc=0
total_pass=0 total_fail=0 total_skip=0
failures=()

# add_summary NAME FILE: add a summary's counts ("PASS FAIL SKIP") to the
# totals and its failures (the lines after the counts) to the list printed
# last, where a CI log's tail shows them.
add_summary() {
	local p f k line
	read -r p f k <"$2"
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	total_skip=$((total_skip + ${k:-0}))
	while IFS= read -r line; do
		[ -z "$line" ] || failures+=("$1: $line")
	done < <(tail -n +2 "$2")
}

# run_vm NAME OUT_DIR TIMEOUT PEER_FLAG TEST...: a TEST is a test module,
# or MODULE@RUN (tests/vm/init runs the module once per RUN; a run on
# kiwi_loop brings that module along).
run_vm() {
	local name=$1 dir=$2 timeout=$3 peer=$4 m kos=() summary
	shift 4
	step "VM $name: initramfs"
	mkdir -p "$dir"
	for m in $kiwi_modules $(printf '%s\n' "$@" |
		sed 's/@loop.*/ kiwi_loop/; s/@.*//' | tr ' ' '\n' | sort -u); do
		kos+=("$(find "$out" -name "$m.ko" | head -n 1)")
	done
	# shellcheck disable=SC2086
	bash "$top/scripts/mkinitramfs.sh" $peer "$dir/initramfs.cpio.gz" \
		"$kdir" "$kiwi_modules" "$*" "${kos[@]}"
	echo "ok: tests: $*"

	step "VM $name: run"
	summary=$dir/summary
	rm -f "$summary"
	python3 "$top/scripts/kiwi_vm.py" \
		--kernel "$kdir/arch/x86/boot/bzImage" \
		--initrd "$dir/initramfs.cpio.gz" --out "$dir" --tests "$*" \
		--expected "${KIWI_EXPECTED:-$top/tests/expected-splats}" \
		--manifest "${KIWI_MANIFEST:-$top/tests/manifest}" \
		--ko-dirs "$out" "$kdir/modroot" --suite-timeout "$timeout" \
		--boot-timeout "${KIWI_BOOT_TIMEOUT:-180}" \
		--append "${KIWI_VM_APPEND:-}" --cpus "${KIWI_VM_CPUS:-2}" \
		--summary "$summary" || rc=1
	if [ -r "$summary" ]; then
		add_summary "VM $name" "$summary"
	else
		total_fail=$((total_fail + 1))
		failures+=("VM $name: no summary (see $dir/console.log)")
		echo "VM $name: no summary (see $dir/console.log)"
	fi
}

main_tests= interop_tests= kit_tests=
for m in $selected; do
	case $m in
	kiwi_interop_test) interop_tests=$m ;;
	kiwi_conformance)
		for r in ${KIWI_KIT_RUNS:-loop softiw}; do
			kit_tests="$kit_tests $m@$r"
		done
		;;
	*) main_tests="$main_tests $m" ;;
	esac
done
# unplanned MANIFEST TEST...: the test modules (MODULE or MODULE@RUN) the
# manifest lists, harness self-tests aside, that are not among TEST.
unplanned() {
	local manifest=$1 mod

	shift
	for mod in $(awk '!/^#/ && NF { print $1 }' "$manifest" | sort -u); do
		case $mod in kiwi_harness_*) continue ;; esac
		case " $* " in *" $mod "*) ;; *) echo "$mod" ;; esac
	done
}

# A full run runs every module the manifest lists: one that was not built
# (dropped from a Kbuild) or not planned (a kit run left out) fails it.
if [ -z "${SUITES:-}" ]; then
	# shellcheck disable=SC2086
	for m in $(unplanned "${KIWI_MANIFEST:-$top/tests/manifest}" \
		$main_tests $interop_tests $kit_tests); do
		total_fail=$((total_fail + 1))
		failures+=("manifest: test module $m was not built or not run")
		echo "manifest: test module $m was not built or not run"
		rc=1
	done
fi

vm=$build/vm
if [ -n "$main_tests" ]; then
	# shellcheck disable=SC2086
	run_vm kiwi "$vm" "${KIWI_SUITE_TIMEOUT:-600}" "" $main_tests
fi
# The provider conformance kit, once on kiwi_loop's devices and once on
# softiw across the veth pair (tests/vm/init, run_setup).
if [ -n "$kit_tests" ]; then
	kit_args=
	for t in $kit_tests; do
		case $t in
		*@loop*) kit_args="$kit_args $t:dev_a=kiwi_loop0 $t:dev_b=kiwi_loop1
			$t:addr_a=192.0.2.1 $t:addr_b=192.0.2.2" ;;
		*@softiw) kit_args="$kit_args $t:dev_a=softiw_kv0 $t:dev_b=softiw_kv1" ;;
		esac
		kit_args="$kit_args $t:unplug_b=/run/kiwi-kit/unplug_b
			$t:plug_b=/run/kiwi-kit/plug_b"
	done
	# shellcheck disable=SC2086
	KIWI_TEST_ARGS="$(echo ${KIWI_TEST_ARGS:-} $kit_args)" \
		run_vm conformance "$vm/conformance" \
		"${KIWI_SUITE_TIMEOUT:-300}" "" $kit_tests
fi
if [ -n "$interop_tests" ]; then
	run_vm interop "$vm/interop" "${KIWI_SUITE_TIMEOUT:-900}" --peer \
		"$interop_tests"
fi

# demo_case NAME INIT WHAT: scripts/demo.sh's VM with /init INIT on the
# test kernel, as one case.
demo_case() {
	local name=$1 init=$2 log=$build/$1.log

	step "$name: $3"
	if KIWI_DEMO_KERNEL=test KIWI_DEMO_MODULES="$out" \
		KIWI_DEMO_INIT="$init" bash "$top/scripts/demo.sh" \
		>"$log" 2>&1; then
		total_pass=$((total_pass + 1))
		grep "^$init passed" "$log"
		return
	fi
	total_fail=$((total_fail + 1))
	failures+=("$name: $3 (log: $log)")
	rc=1
	if grep -q "^$init FAILED:" "$log"; then
		sed -n "/^$init FAILED:/,\$p" "$log"
	else
		tail -n 5 "$log"
	fi
	echo "$name: FAILED (log: $log)"
}

if [ "$samples" = 1 ]; then
	demo_case samples demo "make demo's VM on the test kernel"
fi
if [ "$teardown" = 1 ]; then
	demo_case teardown teardown \
		"kiwi taken apart under live traffic (scripts/teardown-init)"
fi

if [ "$nvme" = 1 ]; then
	bash "$top/scripts/nvme.sh" "$kdir" "$out" "$vm/nvme" || rc=1
	if [ -r "$vm/nvme/summary" ]; then
		add_summary "VM nvme" "$vm/nvme/summary"
	else
		total_fail=$((total_fail + 1))
		failures+=("VM nvme: no summary (see $vm/nvme/console.log)")
		echo "VM nvme: no summary (see $vm/nvme/console.log)"
	fi
fi

if [ "$dkms" = 1 ]; then
	drc=0
	bash "$top/scripts/dkms.sh" "$build/dkms" || drc=$?
	f0=$total_fail
	if [ -r "$build/dkms/summary" ]; then
		add_summary dkms "$build/dkms/summary"
	fi
	# a script that failed without counting it still failed a case
	if [ "$drc" != 0 ] && [ "$total_fail" = "$f0" ]; then
		total_fail=$((total_fail + 1))
		failures+=("dkms: exit $drc (see $build/dkms/dkms.log)")
		echo "dkms: FAILED (exit $drc; see $build/dkms/dkms.log)"
	fi
	[ "$drc" = 0 ] || rc=1
fi

echo
echo "make check: $(($(date +%s) - t0)) s"
if [ "${#failures[@]}" != 0 ]; then
	echo "failed:"
	printf '  %s\n' "${failures[@]:0:20}"
	[ "${#failures[@]}" -le 20 ] ||
		echo "  ... and $((${#failures[@]} - 20)) more (see the log above)"
fi
tail=
[ "$total_skip" = 0 ] || tail=", $total_skip skipped"
echo "$total_pass passed, $total_fail failed$tail"
[ "$total_fail" = 0 ] || rc=1
exit $rc
