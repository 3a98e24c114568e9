#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Prove that kiwi's <rdma/ib_verbs.h> lays out the structs Linux's ULPs
# embed exactly as Linux's does: build tests/layout/layout.c against
# kernel tree KDIR twice, with Linux's headers and with kiwi's include
# directory ahead of them (KIWI_INCLUDE, default include/), and compare
# the records each build leaves in section .kiwi_layout. Prints one line
# per difference and fails on any.
#
# Usage: layout_check.sh [KDIR [OUT]]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
export LC_ALL=C

kdir=${1:-${KDIR:-$(sh "$top/scripts/kdir.sh")}}
out=${2:-$build/layout}
mkdir -p "$out"
out=$(cd "$out" && pwd)
inc=$(cd "${KIWI_INCLUDE:-$top/include}" && pwd)
[ -n "$kdir" ] || die "no kernel headers found (make deps)"

# Build layout.c in $out/$1 with Kbuild line $2 (may be empty).
build_layout() {
	local dir=$out/$1

	rm -rf "$dir"
	mkdir -p "$dir"
	cp "$top/tests/layout/layout.c" "$dir/"
	printf '%s\nobj-m += kiwi_layout.o\nkiwi_layout-y := layout.o\n' \
		"$2" >"$dir/Kbuild"
	# Plain quotes in gcc's messages: Linux's Makefile unexports LC_ALL.
	LANG=C make -C "$kdir" M="$dir" W=1 modules >"$dir/build.log" 2>&1
}

# The records of the build in $out/$1, sorted: "key value" lines.
records() {
	objcopy --dump-section .kiwi_layout="$out/$1/layout.txt" \
		"$out/$1/layout.o" /dev/null
	sort "$out/$1/layout.txt"
}

# Both at once: the step takes half the time.
build_layout linux "" &
linux=$!
build_layout kiwi "NOSTDINC_FLAGS += -I$inc" &
kiwi=$!
rl=0 rk=0
wait $linux || rl=$?
wait $kiwi || rk=$?
if [ $rl -ne 0 ]; then
	tail -20 "$out/linux/build.log" >&2
	die "layout.c: build against Linux's headers failed (log: $out/linux/build.log)"
fi
if [ $rk -ne 0 ]; then
	# A field Linux has and kiwi lacks: name it, as struct.field.
	sed -n "s/.* '\(struct\|union\) \([^']*\)' has no member named '\([^']*\)'.*/\2.\3: missing in kiwi/p" \
		"$out/kiwi/build.log" | sort -u
	grep -E "error" "$out/kiwi/build.log" | grep -v "has no member named" |
		head -20 >&2 || true
	die "layout.c: build against kiwi's headers ($inc) failed (log: $out/kiwi/build.log)"
fi
for b in linux kiwi; do
	if grep -E "warning:|[Ww]arning: " "$out/$b/build.log" >&2; then
		die "layout.c: the build against $b's headers warned"
	fi
done

n=$(records linux | wc -l)
[ "$n" -gt 0 ] || die "layout.c: no records in $out/linux/layout.o"
bad=$(join -a 1 -e '-' -o 0,1.2,2.2 <(records linux) <(records kiwi) |
	awk '$2 != $3 { printf "%s: linux %s, kiwi %s\n", $1, $2, $3 }')
[ -z "$bad" ] || { echo "$bad"; die "kiwi's <rdma/ib_verbs.h> differs from Linux's in $(echo "$bad" | wc -l) of $n records"; }
echo "ok: $n records (sizes, offsets, names) match Linux's"
