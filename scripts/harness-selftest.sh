#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Prove that "make check" can fail: run each harness self-test suite
# (tests/harness/) alone and require a red run whose report names the cause;
# that declared splats are held to their count, and pass when exact; and
# that the provider conformance kit fails the cases of the rule a broken
# kiwi_loop breaks.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# case, then the texts (;;-separated) its failed run must print; a case
# named after a suite runs that suite alone against the real
# tests/expected-splats and manifest, the others are set up below.
cases=(
	"kiwi_harness_fail|kiwi_harness_fail: case 1 harness_fail: failed"
	"kiwi_harness_warn|splat during kiwi_harness_warn: WARNING:"
	"kiwi_harness_leak|unreferenced object(s); first allocation site: harness_leak"
	"kiwi_harness_rdmacm_leak|leak reported during unload-begin: kiwi_rdmacm: id ;;(IDLE) leaked by an unloaded ULP"
	"kiwi_harness_hang|timeout: test module kiwi_harness_hang did not finish"
	"kiwi_harness_kasan|splat during kiwi_harness_kasan: BUG: KASAN: slab-out-of-bounds"
	"kiwi_harness_lockdep|splat during kiwi_harness_lockdep: WARNING: possible circular locking dependency detected"
	"kiwi_harness_panic|splat during kiwi_harness_panic: Kernel panic;;the VM stopped before finishing"
	"manifest|manifest: kiwi_harness_fail harness_gone: no result;;manifest: suite kiwi_harness_gone never reported;;manifest: kiwi_harness_fail harness_fail: 0 parameters, 3 listed"
	"splat-extra|expected splat during kiwi_harness_warn kiwi_harness_warn: /harness_warn/ seen 2 time(s), 1 expected"
	"splat-missing|expected splat during kiwi_harness_warn kiwi_harness_warn: /never_printed/ seen 0 time(s), 1 expected"
	"splat-exact|"
	"kit-defects|kiwi_conformance_cm (loop-no_rem_ref): case 1 kc_connect_accept: failed;;kiwi_iwcm: kiwi_loop1: leaked id;;splat during kiwi_conformance@loop-close_before_established: WARNING:;;kiwi_conformance_cm (loop-close_before_established): case 1 ;;kiwi_conformance_cm (loop-no_flush): case 6 ;;kiwi_conformance_cm (loop-no_flush): case 7 ;;kiwi_conformance_verbs (loop-no_flush): case 11 "
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

# The splat cases: kiwi_harness_warn warns twice, declared as once, as a
# warning it never prints, and (the one case that must pass) as twice.
for n in extra:1:harness_warn missing:1:never_printed exact:2:harness_warn; do
	IFS=: read -r name count regex <<<"$n"
	echo "kiwi_harness_warn kiwi_harness_warn $count $regex" \
		>"$build/selftest-splats-$name"
done

# KIWI_SELFTEST_CASES=a,b runs only those cases (names as above).
only=",${KIWI_SELFTEST_CASES:-},"
bad=0 ran=0
for c in "${cases[@]}"; do
	suite=${c%%|*}
	want=${c#*|}
	[ "$only" = ",," ] || [[ $only == *",$suite,"* ]] || continue
	ran=$((ran + 1))
	logf=$build/selftest-$suite.log
	step "harness self-test: $suite"
	rc=0
	case $suite in
	manifest)
		SUITES=kiwi_harness_fail KIWI_MANIFEST=$manifest \
			KIWI_SKIP_STATIC=1 KIWI_SUITE_TIMEOUT=60 \
			bash "$top/scripts/check.sh" >"$logf" 2>&1 || rc=$?
		;;
	kit-defects)
		# The conformance kit against kiwi_loop broken three ways: a
		# missing rem_ref, CLOSE before ESTABLISHED, no flush.
		SUITES=kiwi_conformance KIWI_SKIP_STATIC=1 \
			KIWI_KIT_RUNS="loop-no_rem_ref loop-close_before_established loop-no_flush" \
			KIWI_SUITE_TIMEOUT=900 \
			bash "$top/scripts/check.sh" >"$logf" 2>&1 || rc=$?
		;;
	splat-*)
		SUITES=kiwi_harness_warn \
			KIWI_EXPECTED=$build/selftest-splats-${suite#splat-} \
			KIWI_SKIP_STATIC=1 KIWI_SUITE_TIMEOUT=60 \
			bash "$top/scripts/check.sh" >"$logf" 2>&1 || rc=$?
		;;
	*)
		SUITES=$suite KIWI_SKIP_STATIC=1 KIWI_SUITE_TIMEOUT=60 \
			bash "$top/scripts/check.sh" >"$logf" 2>&1 || rc=$?
		;;
	esac
	rm -rf "$build/selftest-$suite.vm"
	[ -d "$build/vm" ] && cp -a "$build/vm" "$build/selftest-$suite.vm"
	sed -n '/^problems:/,$p' "$logf"
	if [ -z "$want" ]; then
		# The control: declared exactly, the same run must pass.
		if [ $rc -eq 0 ]; then
			echo "good: green, as declared"
		else
			echo "BAD: make check failed although the splats were declared"
			bad=$((bad + 1))
		fi
	elif [ $rc -eq 0 ]; then
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
echo "$((ran - bad)) passed, $bad failed"
[ $bad -eq 0 ]
