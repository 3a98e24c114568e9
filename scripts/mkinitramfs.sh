#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Assemble the test VM's initramfs: busybox-static, tests/vm/init (and
# tests/vm/testnet.sh, which it sources), kunit.ko from the test kernel
# and the given kiwi modules.
#
# usage: scripts/mkinitramfs.sh OUT.cpio.gz KERNEL_TREE "MODULES" "TESTS" KO...
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$1 kdir=$2 modules=$3 tests=$4
shift 4

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,dev,etc,proc,sys,tmp,lib/kiwi}
# busybox-static's /bin/busybox: the initramfs has no libc.
cp /bin/busybox "$root/bin/busybox"
install -m 0755 "$top/tests/vm/init" "$root/init"
install -m 0644 "$top/tests/vm/testnet.sh" "$root/etc/kiwi-testnet.sh"
kunit=$(find "$kdir/modroot" -name kunit.ko | head -n 1)
[ -n "$kunit" ] || die "kunit.ko not found in $kdir/modroot"
cp "$kunit" "$root/lib/kiwi/"
for ko in "$@"; do
	cp "$ko" "$root/lib/kiwi/"
done
cat >"$root/etc/kiwi.conf" <<CONF
KIWI_MODULES="$modules"
KIWI_TESTS="$tests"
CONF
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out"
