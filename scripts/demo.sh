#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: kiwi and its sample ULPs on Debian's stock kernel. Installs
# the Debian packages it needs, builds the modules against the headers of
# the newest installed linux-image-*-amd64, boots that kernel under QEMU
# TCG with a busybox initramfs (scripts/demo-init), runs the sample server
# and client over loopback and over a veth pair between two network
# namespaces, by SEND and by RDMA READ and WRITE. Then Linux's NVMe over
# Fabrics over kiwi: its RDMA host and target, built here from Debian's
# linux-source-6.1 unmodified against kiwi's headers, export a ramdisk
# and write, read back and compare it through /dev/nvme0n1. Prints the
# event trace and a summary. Exits 0 only if every connection completed,
# the NVMe data came back equal, and the console shows no kernel splat
# (nor, on the test kernel, a leak).
# make check runs it on the test kernel as its samples case.
#
# env: KIWI_DEMO_CONNECTIONS  connections per client run (default 4)
#      KIWI_DEMO_COUNT        messages per connection (default 100)
#      KIWI_DEMO_SIZE         bytes per message (default 4096)
#      KIWI_DEMO_PORT         the server's port (default 7174)
#      KIWI_DEMO_CLIENT_PORT  the port the clients connect to (default:
#                             the server's; another one must fail)
#      KIWI_DEMO_NVME_MIB     MiB the NVMe host writes and reads back
#                             (default 16; 0 leaves NVMe out)
#      KIWI_DEMO_NVME_PORT    the NVMe-oF target's port (default 4420)
#      KIWI_DEMO_NVME_CLIENT_PORT  the port the host connects to (default:
#                             the target's; another one must fail)
#      KIWI_DEMO_KERNEL=test  boot kiwi's debug test kernel (lockdep, KASAN;
#                             built and cached as for make check) instead
#      KIWI_DEMO_MODULES      a tree whose modules were built against that
#                             kernel already (make check's): no build here
#      KIWI_DEMO_INIT=teardown  the teardown VM instead (make check's
#                             teardown group, scripts/teardown-init): kiwi
#                             taken apart under live traffic; no NVMe
set -euo pipefail
. "$(dirname "$0")/lib.sh"

if [ -n "${KIWI_DEMO_MODULES:-}" ] &&
	[ "${KIWI_DEMO_KERNEL:-stock}" != test ]; then
	die "KIWI_DEMO_MODULES needs KIWI_DEMO_KERNEL=test"
fi
connections=${KIWI_DEMO_CONNECTIONS:-4}
count=${KIWI_DEMO_COUNT:-100}
size=${KIWI_DEMO_SIZE:-4096}
port=${KIWI_DEMO_PORT:-7174}
client_port=${KIWI_DEMO_CLIENT_PORT:-$port}
nvme_mib=${KIWI_DEMO_NVME_MIB:-16}
init=${KIWI_DEMO_INIT:-demo}
case $init in
demo) ;;
teardown) nvme_mib=0 count=${KIWI_DEMO_COUNT:-100} ;;
*) die "KIWI_DEMO_INIT is demo or teardown, not $init" ;;
esac
nvme_port=${KIWI_DEMO_NVME_PORT:-4420}
nvme_client_port=${KIWI_DEMO_NVME_CLIENT_PORT:-$nvme_port}
t0=$(date +%s)

# veth.ko of kernel $1, uncompressed (busybox insmod cannot decompress);
# nothing if it is built in.
veth_ko() {
	local dir=/lib/modules/$1/kernel/drivers/net
	if [ "$1" = test ]; then
		return 0
	elif [ -f "$dir/veth.ko" ]; then
		cp "$dir/veth.ko" "$2"
	elif [ -f "$dir/veth.ko.xz" ]; then
		xz -dc "$dir/veth.ko.xz" >"$2"
	elif [ -f "$dir/veth.ko.zst" ]; then
		zstd -qdc "$dir/veth.ko.zst" >"$2"
	else
		die "no veth module for $1 in $dir"
	fi
}

# The NVMe-oF ULPs' sources must be those of the kernel they run on: they
# include nvme-core's private headers, whose structures must match.
same_source() {
	local img src

	img=$(dpkg-query -W -f='${Version}' "linux-image-$1" 2>/dev/null) ||
		die "linux-image-$1 is not a Debian package here"
	src=$(dpkg-query -W -f='${Version}' linux-source-6.1)
	[ "$img" = "$src" ] || die "linux-source-6.1 is $src, linux-image-$1 is $img: the NVMe-oF modules must come from the kernel's own source (set KIWI_DEMO_NVME_MIB=0 to leave NVMe out)"
}

if [ "${KIWI_DEMO_KERNEL:-stock}" = test ]; then
	step "demo [1/4]: Debian packages (kernel source, QEMU, busybox)"
	bash "$top/scripts/deps.sh" check
	kdir=$(bash "$top/scripts/test-kernel.sh")
	kernel=$kdir/arch/x86/boot/bzImage
	kver=test
	modbase=$kdir/modroot
	release=$(cat "$kdir/include/config/kernel.release")
	what="kiwi's debug test kernel"
	out=$build/$init-test
	leaks=--require-kmemleak
else
	step "demo [1/4]: Debian packages (linux-image-amd64, headers, source, QEMU, busybox)"
	bash "$top/scripts/deps.sh" demo
	kver=$(stock_kernel)
	[ -n "$kver" ] || die "no /boot/vmlinuz-*-amd64 with matching linux-headers"
	[ "$nvme_mib" = 0 ] || same_source "$kver"
	kdir=/usr/src/linux-headers-$kver
	kernel=/boot/vmlinuz-$kver
	modbase=/
	release=$kver
	what="Debian's $kver"
	out=$build/$init
	leaks=""
fi
echo "ok: $what"

mods=${KIWI_DEMO_MODULES:-$out/src}
mkdir -p "$out"
if [ -n "${KIWI_DEMO_MODULES:-}" ]; then
	step "demo [2/4]: kiwi and the samples as built in $mods"
else
	step "demo [2/4]: build kiwi, the samples and Linux's NVMe-oF RDMA host and target against $kdir"
	mkdir -p "$mods"
	rsync -a --delete --exclude="/build*" --exclude=/.git "$top/" "$mods/"
	if ! make -C "$kdir" M="$mods" -j"$(nproc)" \
		modules >"$out/build.log" 2>&1; then
		grep -E "error|warning" "$out/build.log" | head -40 >&2
		die "build failed (log: $out/build.log)"
	fi
	if [ "$nvme_mib" != 0 ]; then
		build_ulps "$mods" "$kdir" \
			"$(bash "$top/scripts/test-kernel.sh" --source)" 'nvme-*'
	fi
fi
echo "ok: $(cd "$mods" && find . -name 'kiwi_*.ko' | wc -l) modules"

step "demo [3/4]: initramfs (busybox, kiwi, samples, veth, NVMe-oF)"
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,dev,etc,proc,sys,tmp,lib/kiwi}
cp /bin/busybox "$root/bin/busybox"
install -m 0755 "$top/scripts/$init-init" "$root/init"
install -m 0644 "$top/scripts/vm-lib.sh" "$root/etc/kiwi-vmlib.sh"
install -m 0644 "$top/tests/vm/testnet.sh" "$root/etc/kiwi-testnet.sh"
for m in iw_cm/kiwi_iwcm rdma_cm/kiwi_rdmacm drivers/softiw/kiwi_softiw \
	samples/kiwi_sample_conn samples/kiwi_sample_server \
	samples/kiwi_sample_client; do
	cp "$mods/$m.ko" "$root/lib/kiwi/"
done
veth_ko "$kver" "$root/lib/kiwi/veth.ko"
nvme_linux=
if [ "$nvme_mib" != 0 ]; then
	install -m 0644 "$top/tests/nvme/lib.sh" "$root/etc/kiwi-nvme.sh"
	for m in nvme-host/kiwi_nvme_rdma nvme-target/kiwi_nvmet_rdma; do
		[ -f "$mods/ulp/$m.ko" ] || die "$mods/ulp/$m.ko not built"
		cp "$mods/ulp/$m.ko" "$root/lib/kiwi/"
	done
	nvme_linux=$(linux_modules "$modbase" "$release" "$root/lib/kiwi" \
		brd nvmet nvme-fabrics | tr '\n' ' ')
fi
cat >"$root/etc/demo.conf" <<CONF
PORT=$port
CLIENT_PORT=$client_port
CONNECTIONS=$connections
COUNT=$count
SIZE=$size
NVME_MIB=$nvme_mib
NVME_PORT=$nvme_port
NVME_CLIENT_PORT=$nvme_client_port
NVME_LINUX_MODULES="$nvme_linux"
TRAFFIC_SENDS=${KIWI_DEMO_TRAFFIC_SENDS:-100}
CONF
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out/initramfs.cpio.gz"
echo "ok: $out/initramfs.cpio.gz"

step "demo [4/4]: boot $what under QEMU TCG; $connections connection(s) x $count message(s) of $size bytes per run"
rc=0
# shellcheck disable=SC2086 # $leaks: no word or one
python3 "$top/scripts/${init}_vm.py" --kernel "$kernel" \
	--initrd "$out/initramfs.cpio.gz" --out "$out/vm" \
	--connections "$connections" --count "$count" --nvme-mib "$nvme_mib" \
	--boot-timeout "${KIWI_BOOT_TIMEOUT:-180}" $leaks || rc=$?
echo "make demo: $(($(date +%s) - t0)) s"
exit $rc
