#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Static checks: build against Debian's headers with W=1 and sparse,
# checkpatch --strict, kernel-doc, exported symbol names, module metadata,
# the HTML manual (scripts/htmldocs.sh), the benchmark scripts' self-test,
# SPDX lines. Zero warnings is the only pass.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kdir=${KDIR:-$(sh "$top/scripts/kdir.sh")}
[ -n "$kdir" ] || die "no kernel headers found (make deps)"
src=$(bash "$top/scripts/test-kernel.sh" --source)
out=$build/static

step "static: W=1 C=2 build against $kdir"
build_modules "$out" "$kdir"
# The benchmark modules (make bench) too: Debian's kernel has rdma_cm.
build_bench "$out" "$kdir"
echo "ok: no warnings"

step "static: Linux's ULPs, unmodified, against kiwi's headers"
build_ulps "$out" "$kdir" "$src"

step "static: the verbs structs ULPs embed, laid out as Linux's"
bash "$top/scripts/layout_check.sh" "$kdir" "$out/layout" ||
	die "kiwi's <rdma/ib_verbs.h> does not lay its structs out as Linux's"

step "static: exported symbols and module metadata"
bad=$(awk '$2 !~ /^kiwi_/ { print $2 }' "$out/Module.symvers")
[ -z "$bad" ] || die "exported symbols without the kiwi_ prefix: $bad"
for ko in iw_cm/kiwi_iwcm rdma_cm/kiwi_rdmacm drivers/softiw/kiwi_softiw \
	samples/kiwi_sample_conn samples/kiwi_sample_server \
	samples/kiwi_sample_client; do
	lic=$(/sbin/modinfo -F license "$out/$ko.ko")
	[ "$lic" = GPL ] || die "$ko.ko: licence '$lic', want GPL"
done
for ko in rdma_cm/kiwi_rdmacm drivers/softiw/kiwi_softiw; do
	dep=$(/sbin/modinfo -F depends "$out/$ko.ko")
	case ",$dep," in
	*,kiwi_iwcm,*) ;;
	*) die "$ko.ko depends on '$dep', not on kiwi_iwcm" ;;
	esac
done
# The sample server and client share kiwi_sample_conn.
for ko in samples/kiwi_sample_server samples/kiwi_sample_client; do
	dep=$(/sbin/modinfo -F depends "$out/$ko.ko")
	case ",$dep," in
	*,kiwi_sample_conn,*) ;;
	*) die "$ko.ko depends on '$dep', not on kiwi_sample_conn" ;;
	esac
done
echo "ok: $(wc -l <"$out/Module.symvers") exports, all kiwi_-prefixed"

step "static: checkpatch --strict"
mapfile -t cfiles < <(project_files '*.c' '*.h')
(cd "$top" && perl "$src/scripts/checkpatch.pl" --strict --no-tree --quiet \
	--show-types --ignore FILE_PATH_CHANGES -f "${cfiles[@]}") ||
	die "checkpatch found problems"
echo "ok: ${#cfiles[@]} files"

step "static: kernel-doc"
mapfile -t hfiles < <(project_files 'include/*.h')
# -v adds the checks for Return: sections; its "info:" lines are chatter.
kd=$(cd "$top" && perl "$src/scripts/kernel-doc" -none -v \
	"${hfiles[@]}" "${cfiles[@]}" 2>&1 | grep -v ": info: " || true)
[ -z "$kd" ] || { echo "$kd"; die "kernel-doc warnings"; }
echo "ok: ${#cfiles[@]} files"

step "static: the manual (make htmldocs: Sphinx -n -W, kernel-doc)"
bash "$top/scripts/htmldocs.sh"

step "static: the VM harness's judge, on made-up consoles"
python3 -B "$top/scripts/harness_judge_selftest.py" 2>"$out/judge.log" ||
	{ cat "$out/judge.log"; die "scripts/harness_judge_selftest.py failed"; }
echo "ok: $(grep '^Ran ' "$out/judge.log")"

step "static: the benchmark scripts' self-test"
python3 -B "$top/scripts/bench_selftest.py" 2>"$out/bench_selftest.log" ||
	{ cat "$out/bench_selftest.log"; die "scripts/bench_selftest.py failed"; }
echo "ok: $(grep '^Ran ' "$out/bench_selftest.log")"

step "static: the test manifest"
python3 -B "$top/scripts/kiwi_manifest.py" check "$top/tests/manifest" ||
	die "tests/manifest does not match the KUnit cases of tests/ or Documentation/"

step "static: the conformance kit's rules, in the kit and the guide"
python3 -B "$top/scripts/conformance_rules.py" ||
	die "tests/conformance/kc_rules.c and Documentation/provider-guide.rst name different rules or cases"

step "static: SPDX lines"
missing=
while read -r f; do
	head -n 3 "$top/$f" | grep -q "SPDX-License-Identifier: GPL-2.0" ||
		missing="$missing $f"
done < <(project_files | grep -vE '\.(rst|md|txt)$|^\.gitignore$|/expected-splats$')
[ -z "$missing" ] || die "no SPDX line in:$missing"
echo "ok"
