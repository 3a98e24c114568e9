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
