#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Prove that "make check" can fail: run each harness self-test suite
# (tests/harness/) alone and require a red run whose report names the cause.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# suite, then the text its failed run must print
cases=(
	"kiwi_harness_fail|kiwi_harness_fail: case 1 harness_fail: failed"
	"kiwi_harness_warn|splat during kiwi_harness_warn: WARNING:"
	"kiwi_harness_leak|unreferenced object(s); first allocation site: harness_leak"
	"kiwi_harness_hang|timeout: test module kiwi_harness_hang did not finish"
)

mkdir -p "$build"
bad=0
for c in "${cases[@]}"; do
	suite=${c%%|*}
	want=${c#*|}
	logf=$build/selftest-$suite.log
	step "harness self-test: $suite"
	rc=0
	SUITES=$suite KIWI_SKIP_STATIC=1 KIWI_SUITE_TIMEOUT=60 \
		bash "$top/scripts/check.sh" >"$logf" 2>&1 || rc=$?
	rm -rf "$build/selftest-$suite.vm"
	[ -d "$build/vm" ] && cp -a "$build/vm" "$build/selftest-$suite.vm"
	sed -n '/^problems:/,$p' "$logf"
	if [ $rc -eq 0 ]; then
		echo "BAD: make check passed with $suite"
		bad=$((bad + 1))
	elif ! grep -qF -- "$want" "$logf"; then
		echo "BAD: make check failed but did not say: $want"
		bad=$((bad + 1))
	else
		echo "good: red (rc=$rc), cause named"
	fi
done
echo
echo "$((${#cases[@]} - bad)) passed, $bad failed"
[ $bad -eq 0 ]
