#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Assemble the test VM's initramfs: busybox-static, tests/vm/init (and
# tests/vm/testnet.sh, which it sources), kunit.ko from the test kernel
# and the given kiwi modules. With --peer, also the peer stack of the
# interoperability tests: Linux's RDMA modules (siw and what it and
# rdma_ucm need), iproute2's rdma, rdma-core's ucmatose with libibverbs'
# siw provider, the shared libraries they link, and
# tests/interop/kiwi-peer, which drives them.
#
# usage: scripts/mkinitramfs.sh [--peer] OUT.cpio.gz KERNEL_TREE "MODULES"
#                               "TESTS" KO...
set -euo pipefail
. "$(dirname "$0")/lib.sh"

peer=0
if [ "${1:-}" = --peer ]; then
	peer=1
	shift
fi
out=$1 kdir=$2 modules=$3 tests=$4
shift 4

# Linux's modules of the peer stack, in load order (each after those it
# needs: ib_core <- ib_cm, iw_cm <- rdma_cm <- ib_uverbs, rdma_ucm; siw).
peer_modules="ib_core ib_cm iw_cm rdma_cm ib_uverbs rdma_ucm siw"
peer_tools="/usr/bin/rdma /usr/bin/ucmatose /usr/bin/rping"
peer_provider=/usr/lib/x86_64-linux-gnu/libibverbs/libsiw-rdmav34.so
# glibc dlopens libgcc_s for pthread_exit/pthread_cancel (rping uses them);
# ldd does not name it.
peer_unwind=/usr/lib/x86_64-linux-gnu/libgcc_s.so.1
peer_driver=/etc/libibverbs.d/siw.driver

# Copy a file to the same path under $root, with the shared libraries ldd
# says it links (their paths resolved, so merged-/usr symlinks are not
# needed) and the dynamic loader at the path the binaries name.
copy_with_libs() {
	local f lib

	for f in "$@"; do
		[ -e "$f" ] || die "$f missing (make deps)"
		mkdir -p "$root$(dirname "$f")"
		cp -L "$f" "$root$f"
		for lib in $(ldd "$f" | awk '/=> \// { print $3 } /^\t\// { print $1 }'); do
			[ -e "$root$lib" ] && continue
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
	done
}

add_peer() {
	local m ko loaded=

	copy_with_libs $peer_tools $peer_provider $peer_unwind
	mkdir -p "$root/etc/libibverbs.d" "$root/run"
	cp "$peer_driver" "$root/etc/libibverbs.d/"
	install -m 0755 "$top/tests/interop/kiwi-peer" "$root/bin/kiwi-peer"
	for m in $peer_modules; do
		ko=$(find "$kdir/modroot" -name "$m.ko" | head -n 1)
		[ -n "$ko" ] || die "$m.ko not found in $kdir/modroot"
		cp "$ko" "$root/lib/kiwi/"
		loaded="$loaded $m"
	done
	echo "KIWI_LINUX_MODULES=\"${loaded# }\"" >>"$root/etc/kiwi.conf"
}

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
KIWI_TEST_ARGS="${KIWI_TEST_ARGS:-}"
CONF
[ $peer = 0 ] || add_peer
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out"
