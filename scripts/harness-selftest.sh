#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Prove that "make check" can fail: run each harness self-test suite
# (tests/harness/) alone and require a red run whose report names the cause.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# suite, then the texts (;;-separated) its failed run must print
cases=(
	"kiwi_harness_fail|kiwi_harness_fail: case 1 harness_fail: failed"
	"kiwi_harness_warn|splat during kiwi_harness_warn: WARNING:"
	"kiwi_harness_leak|unreferenced object(s); first allocation site: harness_leak"
	"kiwi_harness_hang|timeout: test module kiwi_harness_hang did not finish"
	"manifest|manifest: kiwi_harness_fail harness_gone: no result;;manifest: suite kiwi_harness_gone never reported;;manifest: kiwi_harness_fail harness_fail: 0 parameters, 3 listed"
)

# The manifest case: kiwi_harness_fail, held to a manifest that lists a
# case it does not have, a suite it does not have, and more parameters.
manifest=$build/selftest-manifest
mkdir -p "$build"
cat >"$manifest" <<EOF_MANIFEST
kiwi_harness_fail kiwi_harness_fail harness_fail 3
kiwi_harness_fail kiwi_harness_fail harness_gone 0
kiwi_harness_fail kiwi_harness_gone harness_fail 0
EOF_MANIFEST

mkdir -p "$build"
bad=0
for c in "${cases[@]}"; do
	suite=${c%%|*}
	want=${c#*|}
	logf=$build/selftest-$suite.log
	step "harness self-test: $suite"
	rc=0
	if [ "$suite" = manifest ]; then
		SUITES=kiwi_harness_fail KIWI_MANIFEST=$manifest \
			KIWI_SKIP_STATIC=1 KIWI_SUITE_TIMEOUT=60 \
			bash "$top/scripts/check.sh" >"$logf" 2>&1 || rc=$?
	else
		SUITES=$suite KIWI_SKIP_STATIC=1 KIWI_SUITE_TIMEOUT=60 \
			bash "$top/scripts/check.sh" >"$logf" 2>&1 || rc=$?
	fi
	rm -rf "$build/selftest-$suite.vm"
	[ -d "$build/vm" ] && cp -a "$build/vm" "$build/selftest-$suite.vm"
	sed -n '/^problems:/,$p' "$logf"
	if [ $rc -eq 0 ]; then
		echo "BAD: make check passed with $suite"
		bad=$((bad + 1))
	else
		missing=
		while read -r w; do
			grep -qF -- "$w" "$logf" || missing="$missing [$w]"
		done < <(printf '%s\n' "${want//;;/$'\n'}")
		if [ -n "$missing" ]; then
			echo "BAD: make check failed but did not say:$missing"
			bad=$((bad + 1))
		else
			echo "good: red (rc=$rc), cause named"
		fi
	fi
done
echo
echo "$((${#cases[@]} - bad)) passed, $bad failed"
[ $bad -eq 0 ]
