#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-nvme (and the last part of make bench): NVMe over Fabrics
# through one ramdisk over kiwi (Linux's nvme-rdma and nvmet-rdma built
# unmodified against kiwi's headers, over softiw), over Linux's own
# nvme-rdma and nvmet-rdma over siw, and over Linux's NVMe/TCP, in one VM
# run of the benchmark kernel (tests/bench.config; bench/nvme-init). Prints
# a table with the ratios kiwi/NVMe-TCP and kiwi/Linux, and writes its rows
# as "datapath" into $BUILD/bench/results.json (scripts/bench_nvme.py).
#
# env: KIWI_BENCH_NVME_SECONDS     seconds per load and stack (default 10)
#      KIWI_BENCH_NVME_SPAN_MIB    the ramdisk, MiB (default 128)
#      KIWI_BENCH_NVME_QUEUE_SIZE  entries per I/O queue (default 64)
#      KIWI_BENCH_NVME_STACKS      stacks, in run order (default
#                                  "tcp kiwi linux")
#      KIWI_BENCH_TIMEOUT          seconds the VM may run (default 1800)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

t0=$(date +%s)
step "bench-nvme: benchmark kernel"
kdir=$(bash "$top/scripts/test-kernel.sh" "$top/tests/bench.config")
echo "ok: $kdir"

step "bench-nvme: kiwi, and Linux's NVMe-oF RDMA host and target, against it"
out=$build/benchk
build_modules "$out" "$kdir"
build_ulps "$out" "$kdir" "$(bash "$top/scripts/test-kernel.sh" --source)" \
	'nvme-*'
vm=$build/bench-nvme
mkdir -p "$vm"
gcc -O2 -Wall -Wextra -Werror -static -pthread -o "$vm/bench_blkio" \
	"$top/scripts/bench_blkio.c"
echo "ok: no warnings"

step "bench-nvme: initramfs"
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,dev,etc,proc,sys,tmp,run,lib/kiwi}
cp /bin/busybox "$root/bin/busybox"
cp "$vm/bench_blkio" "$root/bin/"
install -m 0755 "$top/bench/nvme-init" "$root/init"
install -m 0644 "$top/tests/vm/testnet.sh" "$root/etc/kiwi-testnet.sh"
install -m 0644 "$top/tests/nvme/lib.sh" "$root/etc/kiwi-nvme.sh"
cat >"$root/etc/kiwi-bench-nvme.conf" <<CONF
NVME_STACKS="${KIWI_BENCH_NVME_STACKS:-tcp kiwi linux}"
NVME_SECONDS=${KIWI_BENCH_NVME_SECONDS:-10}
NVME_SPAN_MIB=${KIWI_BENCH_NVME_SPAN_MIB:-128}
NVME_QUEUE_SIZE=${KIWI_BENCH_NVME_QUEUE_SIZE:-64}
CONF
for m in iw_cm/kiwi_iwcm rdma_cm/kiwi_rdmacm drivers/softiw/kiwi_softiw \
	ulp/nvme-host/kiwi_nvme_rdma ulp/nvme-target/kiwi_nvmet_rdma; do
	cp "$out/$m.ko" "$root/lib/kiwi/"
done
# Linux's modules, with modules.dep for busybox's modprobe.
cp -a "$kdir/modroot/lib/modules" "$root/lib/"
rdma=$(command -v rdma) || die "iproute2's rdma tool not found"
copy_bin "$root" "$rdma"
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$vm/initramfs.cpio.gz"
echo "ok"

step "bench-nvme: VM run (QEMU TCG, 2 vCPUs)"
rm -f "$vm/console.log" "$vm/results.log"
timeout "${KIWI_BENCH_TIMEOUT:-1800}" qemu-system-x86_64 -accel tcg -smp 2 \
	-m 3072 -nic none -no-reboot -display none -monitor none \
	-kernel "$kdir/arch/x86/boot/bzImage" -initrd "$vm/initramfs.cpio.gz" \
	-append "console=ttyS0 loglevel=4 panic=-1" \
	-chardev file,id=con,path="$vm/console.log" -serial chardev:con \
	-chardev file,id=res,path="$vm/results.log" -serial chardev:res ||
	die "the VM did not finish (timeout or QEMU error; log: $vm/console.log)"

step "bench-nvme: results"
python3 "$top/scripts/bench_nvme.py" "$vm/results.log" "$vm/console.log" \
	"$build/bench/results.json"
echo "make bench-nvme: $(($(date +%s) - t0)) s"
