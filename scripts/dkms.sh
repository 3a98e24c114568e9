#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's DKMS cases: kiwi as a user installs it (README.md, "Install
# with DKMS"), then loaded on the kernel it was built for.
#
#   dkms-build  dkms.conf read, "dkms build" and "dkms install" of the
#               work tree's sources against Debian's installed
#               linux-headers-*-amd64, in a DKMS tree, source tree and
#               install tree of their own under OUT_DIR (the system's
#               /var/lib/dkms, /usr/src and /lib/modules are not touched;
#               the signing key DKMS makes goes there too)
#   dkms-load   Debian's stock kernel of that release boots under QEMU
#               with the modules "dkms install" put in place, loads them
#               in dependency order, attaches softiw to lo, sees its
#               device in kiwi_iwcm's registry, detaches it and unloads
#               everything, with no splat on the console
#               (scripts/dkms-init, judged by scripts/dkms_vm.py)
#
# usage: scripts/dkms.sh OUT_DIR   (writes OUT_DIR/summary: "PASS FAIL SKIP",
#                        then a line per failed case)
# env:   KIWI_DKMS_CONF  the dkms.conf to use (default: the work tree's;
#                        to prove the cases fail with a broken one)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mkdir -p "$1"
dir=$(cd "$1" && pwd)
conf=${KIWI_DKMS_CONF:-$top/dkms.conf}
pass=0 fail=0 failures=
rm -f "$dir/summary"
trap 'printf "%s\n%s" "$pass $fail 0" "$failures" >"$dir/summary"' EXIT

# case_failed NAME MESSAGE
case_failed() {
	fail=$((fail + 1))
	failures="$failures$1: $2
"
	echo "dkms: $1: FAILED: $2"
}

step "dkms-build: dkms build and install against Debian's headers"
t=$(date +%s)
kver=$(stock_kernel)
if [ -z "$kver" ]; then
	case_failed dkms-build "no /boot/vmlinuz-*-amd64 with its linux-headers (make deps)"
	case_failed dkms-load "not run: nothing built"
	exit 1
fi
# conf VAR: a directive of dkms.conf (arrays: every element).
conf() {
	(set +u; . "$conf" && eval "echo \"\${$1[*]}\"")
}
name=$(conf PACKAGE_NAME)
version=$(conf PACKAGE_VERSION)
src=$dir/src tree=$dir/tree inst=$dir/inst
rm -rf "$src" "$tree" "$inst"
mkdir -p "$src/$name-$version" "$tree" "$inst/$kver"
# What a clone holds (the work tree's files, as git sees them), as
# /usr/src/$name-$version would.
project_files | (cd "$top" && tar -cf - -T -) |
	tar -xf - -C "$src/$name-$version"
cp "$conf" "$src/$name-$version/dkms.conf"
logf=$dir/dkms.log
dkms_run() {
	# The signing key dkms makes when none exists goes here, not to
	# /var/lib/dkms; dkms takes these two from the environment.
	mok_signing_key=$dir/mok.key mok_certificate=$dir/mok.pub \
		dkms "$@" "$name/$version" -k "$kver" \
		--kernelsourcedir "/usr/src/linux-headers-$kver" \
		--sourcetree "$src" --dkmstree "$tree" --installtree "$inst" \
		</dev/null >>"$logf" 2>&1
}
: >"$logf"
mods=
if ! dkms_run build; then
	tail -n 15 "$logf" | sed 's/^/  | /'
	make_log=$(find "$tree" -name make.log | head -n 1)
	[ -z "$make_log" ] || grep -E "error|Error" "$make_log" | head -20 || true
	case_failed dkms-build "dkms build of $name/$version for $kver failed (log: $logf)"
elif ! dkms_run install --no-depmod; then
	tail -n 15 "$logf" | sed 's/^/  | /'
	case_failed dkms-build "dkms install of $name/$version for $kver failed (log: $logf)"
else
	# The modules dkms.conf names, in its order, each where it went.
	want=$(conf BUILT_MODULE_NAME)
	for m in $want; do
		ko=$(find "$inst/$kver" -name "$m.ko*" | head -n 1)
		if [ -z "$ko" ]; then
			case_failed dkms-build "dkms install put no $m.ko in $inst/$kver"
			mods=
			break
		fi
		mods="$mods $ko"
	done
	if [ -n "$mods" ]; then
		for m in kiwi_iwcm kiwi_rdmacm kiwi_softiw; do
			case " $want " in
			*" $m "*) ;;
			*) case_failed dkms-build "dkms.conf does not install $m"; mods= ;;
			esac
		done
	fi
	if [ -n "$mods" ]; then
		pass=$((pass + 1))
		echo "ok: dkms-build: $name/$version for $kver:$(for k in $mods; do
			printf ' %s' "$(basename "$k")"; done) ($(($(date +%s) - t)) s)"
	fi
fi

step "dkms-load: Debian's $kver boots with the modules DKMS installed"
if [ -z "$mods" ]; then
	case_failed dkms-load "not run: DKMS installed no modules"
	exit 1
fi
t=$(date +%s)
root=$(mktemp -d)
trap 'rm -rf "$root"; printf "%s\n%s" "$pass $fail 0" "$failures" >"$dir/summary"' EXIT
mkdir -p "$root"/{bin,dev,etc,proc,sys,tmp,lib/kiwi}
cp /bin/busybox "$root/bin/busybox"
install -m 0755 "$top/scripts/dkms-init" "$root/init"
# Load order: each module after every module it depends on, which must
# be one of the modules before it (the stock kernel needs none of its
# own for kiwi). busybox's insmod takes plain .ko files only.
order= loaded=" "
for ko in $mods; do
	m=$(basename "$ko")
	m=${m%%.ko*}
	for d in $(modinfo -F depends "$ko" | tr ',' ' '); do
		case $loaded in
		*" $d "*) ;;
		*) case_failed dkms-load "$m depends on $d, which does not load before it"
		   exit 1 ;;
		esac
	done
	case $ko in
	*.ko.xz) xz -dc "$ko" >"$root/lib/kiwi/$m.ko" ;;
	*.ko.zst) zstd -qdc "$ko" >"$root/lib/kiwi/$m.ko" ;;
	*) cp "$ko" "$root/lib/kiwi/$m.ko" ;;
	esac
	order="$order $m"
	loaded="$loaded$m "
done
echo "MODULES=\"${order# }\"" >"$root/etc/kiwi-dkms.conf"
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$dir/initramfs.cpio.gz"
echo "ok: initramfs: ${order# }"
if python3 "$top/scripts/dkms_vm.py" --kernel "/boot/vmlinuz-$kver" \
	--initrd "$dir/initramfs.cpio.gz" --out "$dir/vm" \
	--modules "${order# }" --release "$kver" \
	--boot-timeout "${KIWI_BOOT_TIMEOUT:-180}"; then
	pass=$((pass + 1))
	echo "ok: dkms-load ($(($(date +%s) - t)) s)"
else
	case_failed dkms-load "see $dir/vm/console.log"
fi
[ "$fail" = 0 ]
