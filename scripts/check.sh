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
#                          it); default: every kiwi_*_test module
#      KIWI_SKIP_STATIC=1  skip the static checks (quick iteration)
#      KIWI_SUITE_TIMEOUT  seconds a test module may run (default 300)
#      KIWI_CACHE          where the test kernel is cached (/var/cache/kiwi)
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

# Test modules, in run order; harness self-tests only when asked for.
mapfile -t all < <(cd "$out" && find tests -name 'kiwi_*.ko' |
	sed 's|.*/||; s|\.ko$||' | grep -v '^kiwi_testlib$' | sort)
selected=
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
[ -n "$selected" ] || die "SUITES='${SUITES:-}' selects no test module"

step "VM: initramfs"
vm=$build/vm
mkdir -p "$vm"
kiwi_modules="kiwi_iwcm kiwi_rdmacm kiwi_softiw kiwi_testlib"
kos=()
for m in $kiwi_modules $selected; do
	kos+=("$(find "$out" -name "$m.ko" | head -n 1)")
done
# The interoperability tests need Linux's siw and rdma-core's tools in the
# VM; other runs keep the initramfs they always had.
# The interop suite also starts ucmatose once per case, each start taking
# seconds under TCG: unless told otherwise, its runs give each test module
# 900 s instead of 300.
peer=()
timeout=${KIWI_SUITE_TIMEOUT:-300}
case " $selected " in *" kiwi_interop_test "*)
	peer=(--peer)
	timeout=${KIWI_SUITE_TIMEOUT:-900}
	;;
esac
bash "$top/scripts/mkinitramfs.sh" "${peer[@]}" "$vm/initramfs.cpio.gz" "$kdir" \
	"$kiwi_modules" "${selected# }" "${kos[@]}"
echo "ok: tests:$selected"

step "VM: run"
rc=0
python3 "$top/scripts/kiwi_vm.py" --kernel "$kdir/arch/x86/boot/bzImage" \
	--initrd "$vm/initramfs.cpio.gz" --out "$vm" --tests "${selected# }" \
	--expected "$top/tests/expected-splats" --ko-dirs "$out" "$kdir/modroot" \
	--suite-timeout "$timeout" || rc=$?
echo "make check: $(($(date +%s) - t0)) s"
exit $rc
