#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's NVMe over Fabrics case: Linux's NVMe-oF RDMA host and
# target, built unmodified against kiwi's headers (build_ulps), over
# kiwi's softiw in a VM of the debug test kernel (tests/nvme/init), judged
# by scripts/nvme_vm.py.
#
# usage: scripts/nvme.sh KERNEL_TREE MODULES_TREE OUT_DIR
#   KERNEL_TREE   the test kernel (scripts/test-kernel.sh)
#   MODULES_TREE  kiwi built against it, with ulp/nvme-host and
#                 ulp/nvme-target (check.sh's build/testk)
#   OUT_DIR       initramfs, logs and the summary ("PASS FAIL SKIP")
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kdir=$1 mods=$2 dir=$3
# Linux's modules the ULPs need (linux_modules() adds what they depend
# on and orders them).
linux_wanted="brd nvmet nvme-fabrics"
kiwi_modules="kiwi_iwcm kiwi_rdmacm kiwi_softiw kiwi_nvme_rdma kiwi_nvmet_rdma"

step "VM nvme: initramfs"
mkdir -p "$dir"
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,dev,etc,proc,sys,tmp,lib/kiwi}
cp /bin/busybox "$root/bin/busybox"
install -m 0755 "$top/tests/nvme/init" "$root/init"
install -m 0644 "$top/tests/vm/testnet.sh" "$root/etc/kiwi-testnet.sh"
install -m 0644 "$top/tests/nvme/lib.sh" "$root/etc/kiwi-nvme.sh"
linux_modules=$(linux_modules "$kdir/modroot" \
	"$(cat "$kdir/include/config/kernel.release")" "$root/lib/kiwi" \
	$linux_wanted | tr '\n' ' ')
for m in $kiwi_modules; do
	ko=$(find "$mods" -name "$m.ko" -not -path '*/tests/*' | head -n 1)
	[ -n "$ko" ] || die "$m.ko not found in $mods"
	cp "$ko" "$root/lib/kiwi/"
done
cat >"$root/etc/kiwi.conf" <<CONF
KIWI_LINUX_MODULES="$linux_modules"
KIWI_MODULES="$kiwi_modules"
CONF
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$dir/initramfs.cpio.gz"
echo "ok: $dir/initramfs.cpio.gz"

step "VM nvme: run"
rm -f "$dir/summary"
python3 "$top/scripts/nvme_vm.py" --kernel "$kdir/arch/x86/boot/bzImage" \
	--initrd "$dir/initramfs.cpio.gz" --out "$dir" \
	--summary "$dir/summary" \
	--boot-timeout "${KIWI_BOOT_TIMEOUT:-180}" \
	--suite-timeout "${KIWI_SUITE_TIMEOUT:-600}"
