# SPDX-License-Identifier: GPL-2.0
#
# Shared by kiwi's shell scripts; sourced, not run.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD:-$top/build}

step() { printf '\n== %s\n' "$*"; }
die() { echo "error: $*" >&2; exit 1; }

# Project files, as git sees them in the work tree (tracked and untracked,
# not ignored), so that a new file is checked before it is committed.
project_files() {
	git -C "$top" ls-files --cached --others --exclude-standard -- "$@" |
		while read -r f; do [ -e "$top/$f" ] && echo "$f"; done
}

# Debian's newest kernel that has both its image and its headers
# installed (linux-image-*-amd64, linux-headers-*-amd64): its release.
stock_kernel() {
	local img v
	for img in $(ls /boot/vmlinuz-*-amd64 2>/dev/null | sort -rV); do
		v=${img#/boot/vmlinuz-}
		if [ -d "/usr/src/linux-headers-$v" ]; then
			echo "$v"
			return
		fi
	done
}

# Copy the sources to $1 and build kiwi's modules there against kernel
# tree $2 with W=1 and sparse; fail on any warning. Extra make arguments
# follow. Each kernel gets its own copy, so builds never share objects.
build_modules() {
	local dst=$1 kdir=$2 logf
	shift 2
	mkdir -p "$dst"
	rsync -a --delete --exclude="/build*" --exclude=/.git "$top/" "$dst/"
	logf=$dst/build.log
	if ! make -C "$kdir" M="$dst" W=1 C=2 "$@" modules >"$logf" 2>&1; then
		grep -E "error|warning" "$logf" | head -40 >&2
		die "module build against $kdir failed (log: $logf)"
	fi
	if grep -E "warning:|error:|[Ww]arning: " "$logf" >&2; then
		die "module build against $kdir is not warning-free (log: $logf)"
	fi
}

# Build the benchmark modules (bench/) in $1/bench, a tree build_modules()
# made, against kernel tree $2, with W=1 and sparse; fail on any warning.
build_bench() {
	local dst=$1 kdir=$2 logf=$1/bench.log

	if ! make -C "$kdir" M="$dst/bench" W=1 C=2 \
		KBUILD_EXTRA_SYMBOLS="$dst/Module.symvers" modules >"$logf" 2>&1; then
		grep -E "error|warning" "$logf" | head -40 >&2
		die "benchmark modules: build against $kdir failed (log: $logf)"
	fi
	if grep -E "warning:|error:|[Ww]arning: " "$logf" >&2; then
		die "benchmark modules: build against $kdir warned (log: $logf)"
	fi
}

# Build Linux's own RDMA ULPs, unmodified, against kiwi's headers: copy
# each one's sources from linux-source tree $3 to $1/ulp/<name>, with a
# Kbuild that puts kiwi's include directory ahead of the kernel's (the
# only kiwi-specific line), and build against kernel tree $2 and the
# Module.symvers of kiwi's build in $1. Fail on any warning (modpost's
# "undefined" among them), and on an RDMA symbol the module needs that
# is not one of kiwi's exports (nm -u shows no bare ib_ or rdma_ symbol).
# With $4, only the ULPs whose names match that glob.
build_ulps() {
	local dst=$1 kdir=$2 src=$3 only=${4:-*} name obj files dir logf f sym

	while read -r name obj files; do
		case $name in ''|'#'*) continue ;; esac
		# shellcheck disable=SC2254
		case $name in $only) ;; *) continue ;; esac
		dir=$dst/ulp/$name
		logf=$dir/build.log
		rm -rf "$dir"
		mkdir -p "$dir"
		for f in $files; do
			[ -f "$src/$f" ] || die "ulp $name: $f not in $src"
			cp "$src/$f" "$dir/"
		done
		{
			echo "NOSTDINC_FLAGS += -I$top/include"
			echo "obj-m += $obj.o"
			printf '%s-y :=' "$obj"
			for f in $files; do
				case $f in *.c) printf ' %s' "$(basename "${f%.c}").o" ;; esac
			done
			echo
		} >"$dir/Kbuild"
		if ! make -C "$kdir" M="$dir" W=1 \
			KBUILD_EXTRA_SYMBOLS="$dst/Module.symvers" modules \
			>"$logf" 2>&1; then
			grep -E "error|warning" "$logf" | head -40 >&2
			die "ulp $name: build against kiwi's headers failed (log: $logf)"
		fi
		if grep -E "warning:|error:|[Ww]arning: " "$logf" >&2; then
			die "ulp $name: build against kiwi's headers warned (log: $logf)"
		fi
		sym=$(nm -u "$dir/$obj.ko" | awk '{ print $2 }' |
			grep -E '^_*(ib|rdma|iw)_' || true)
		[ -z "$sym" ] || die "ulp $name: not kiwi's: $sym"
		echo "ok: $name ($obj.ko): $(nm -u "$dir/$obj.ko" |
			grep -c ' kiwi_') kiwi symbols, no other RDMA symbol"
	done <"$top/tests/ulps"
}

# Copy Linux's modules $4... of kernel release $2, installed under root $1
# (/ for the system's /lib/modules), and every module they depend on, into
# directory $3 as plain .ko files (busybox's insmod neither resolves
# dependencies nor decompresses). Prints their names, each after those it
# depends on: the order to load them in. Only hard dependencies count (a
# soft one, such as an accelerated crc-t10dif, may not load on QEMU's
# CPU); built-in modules are left out.
linux_modules() {
	local base=$1 kver=$2 dst=$3 m
	_lm_seen=" "
	shift 3
	mkdir -p "$dst"
	for m in "$@"; do
		_linux_module "$base" "$kver" "$dst" "$m"
	done
}

_linux_module() {
	local base=$1 kver=$2 dst=$3 name=$4 key ko deps d

	key=$(echo "$name" | tr - _)
	case $_lm_seen in *" $key "*) return 0 ;; esac
	_lm_seen="$_lm_seen$key "
	ko=$(modinfo -b "$base" -k "$kver" -n "$name") ||
		die "module $name of $kver (under $base) not found"
	case $ko in (builtin* | "(builtin)"* | "") return 0 ;; esac
	deps=$(modinfo -b "$base" -k "$kver" -F depends "$name")
	for d in ${deps//,/ }; do
		_linux_module "$base" "$kver" "$dst" "$d"
	done
	case $ko in
	*.ko.xz) xz -dc "$ko" >"$dst/$name.ko" ;;
	*.ko.zst) zstd -qdc "$ko" >"$dst/$name.ko" ;;
	*.ko) cp "$ko" "$dst/$name.ko" ;;
	*) die "$ko: not a module file" ;;
	esac
	echo "$name"
}

# Copy host binary $2, with the shared libraries it links, into the tree
# of root $1 at the same paths.
copy_bin() {
	local f
	for f in "$2" $(ldd "$2" | grep -o '/[^ ]*'); do
		mkdir -p "$1$(dirname "$f")"
		cp -L "$f" "$1$f"
	done
}
