#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (once) and print the path of kiwi's test kernel: x86_64 tinyconfig
# from Debian's linux-source-6.1 plus a config fragment. The build lives
# outside the checkout, keyed by source package version + fragment hash, so
# every clone on a machine shares it.
#
# usage: scripts/test-kernel.sh [FRAGMENT]   (default tests/kernel.config)
#        scripts/test-kernel.sh --source     extract the source only, print it
# env:   KIWI_CACHE   cache root (default /var/cache/kiwi)
#        KIWI_JOBS    parallel jobs (default: nproc)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
mode=kernel
if [ "${1:-}" = --source ]; then
	mode=source
	shift
fi
frag=${1:-$top/tests/kernel.config}
cache=${KIWI_CACHE:-/var/cache/kiwi}
jobs=${KIWI_JOBS:-$(nproc)}
tarball=/usr/src/linux-source-6.1.tar.xz

log() { echo "test-kernel: $*" >&2; }
trap 'log "failed at line $LINENO: $BASH_COMMAND"' ERR
die() { log "error: $*"; exit 1; }

[ -r "$tarball" ] || die "$tarball missing (run: make deps)"
[ -r "$frag" ] || die "config fragment $frag missing"

pkgver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
hash=$(sha256sum <"$frag" | cut -c1-12)
src=$cache/src/linux-source-$pkgver
flavour=$(basename "$frag" .config)
out=$cache/kernel-$pkgver-$flavour-$hash

mkdir -p "$cache/src"
# One build per flavour at a time; flavours share the extracted source,
# which has a lock of its own (all --source takes).
if [ $mode = kernel ]; then
	exec 8>"$cache/.lock-$flavour"
	flock 8
	if [ -e "$out/.kiwi-complete" ]; then
		echo "$out"
		exit 0
	fi
fi

exec 9>"$cache/.lock"
flock 9
if [ ! -e "$src/.kiwi-complete" ]; then
	log "extracting $tarball (once per source version)"
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	tar -xJf "$tarball" -C "$src.tmp" --strip-components=1
	touch "$src.tmp/.kiwi-complete"
	mv "$src.tmp" "$src"
fi
exec 9>&-
if [ $mode = source ]; then
	echo "$src"
	exit 0
fi

verify_config() {
	local line name want got bad=0

	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*)
			name=${line%%=*}
			want=${line#*=}
			;;
		"# CONFIG_"*" is not set")
			name=${line#\# }
			name=${name%% *}
			want=n
			;;
		*)
			continue
			;;
		esac
		got=$(grep -E "^$name=" "$out/.config" | cut -d= -f2- || true)
		[ -n "$got" ] || got=n
		if [ "$got" != "$want" ]; then
			log "config $name: asked for $want, got $got"
			bad=1
		fi
	done <"$frag"
	return $bad
}

log "building $out (first run only; several minutes)"
rm -rf "$out"
# A build of another fragment of the same flavour makes a good start: make
# then recompiles only what the changed options touch.
seed=$(ls -dt "$cache/kernel-$pkgver-$flavour"-*/.kiwi-complete \
	2>/dev/null | head -n 1 || true)
if [ -n "$seed" ]; then
	log "starting from ${seed%/.kiwi-complete}"
	cp -a "${seed%/.kiwi-complete}" "$out"
	rm -rf "$out/.kiwi-complete" "$out/modroot"
else
	mkdir -p "$out"
fi
start=$(date +%s)
kmake() { make -s -C "$src" O="$out" ARCH=x86_64 "$@"; }
kmake tinyconfig >/dev/null
"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$frag" >/dev/null
kmake olddefconfig >/dev/null
verify_config || die "options of $frag did not survive olddefconfig"
kmake -j"$jobs" bzImage modules >"$out/build.log" 2>&1 ||
	{ tail -30 "$out/build.log" >&2; die "kernel build failed (log: $out/build.log)"; }
kmake INSTALL_MOD_PATH="$out/modroot" INSTALL_MOD_STRIP=1 modules_install >/dev/null
touch "$out/.kiwi-complete"
# Keep this build and the one before it (a branch switch away); a build is
# about 300 MB.
ls -dt "$cache/kernel-$pkgver-$flavour"-*/ | tail -n +3 |
	xargs -r rm -rf || true
log "built in $(($(date +%s) - start)) s"
echo "$out"
