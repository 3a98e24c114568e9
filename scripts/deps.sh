#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages a make target needs, only those missing.
# usage: scripts/deps.sh build|check|demo|bench|docs|all
#
# Prints one line per step; apt's own output goes to $BUILD/deps.log
# (build/deps.log), whose path it prints, and whose tail it shows when a
# step fails.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

build_pkgs="make gcc linux-headers-amd64 flex bison bc libelf-dev libssl-dev kmod"
# make htmldocs: Sphinx, and linux-source-6.1's kernel-doc (Perl) and its
# Sphinx extension, extracted into build/ when the manual is built.
docs_pkgs="python3-sphinx linux-source-6.1 perl xz-utils"
# make check: the static stage builds the manual and DKMS-builds kiwi
# against Debian's headers; its dkms step boots Debian's stock kernel.
check_pkgs="$build_pkgs $docs_pkgs sparse cpio gzip busybox-static git
	binutils qemu-system-x86 python3 rsync iproute2 rdmacm-utils
	ibverbs-providers dkms linux-image-amd64 zstd"
demo_pkgs="$build_pkgs linux-image-amd64 linux-source-6.1 cpio gzip busybox-static
	qemu-system-x86 rsync xz-utils zstd python3 kmod"
# make bench needs what make check needs (iproute2 for siw links included).
bench_pkgs=$check_pkgs

case "${1:-all}" in
build) want=$build_pkgs ;;
check) want=$check_pkgs ;;
demo) want=$demo_pkgs ;;
bench) want=$bench_pkgs ;;
docs) want=$docs_pkgs ;;
all) want="$check_pkgs $demo_pkgs $bench_pkgs $docs_pkgs" ;;
*) echo "usage: $0 build|check|demo|bench|docs|all" >&2; exit 2 ;;
esac

missing=
n=0
for p in $want; do
	case " $missing " in *" $p "*) continue ;; esac
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		{ missing="$missing $p"; n=$((n + 1)); }
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing Debian packages:$missing (run as root, or install them)" >&2
	exit 1
fi

logf=$build/deps.log
mkdir -p "$build"
: >"$logf"
echo "deps: $n Debian package(s) to install:$missing (apt's output: $logf)"
export DEBIAN_FRONTEND=noninteractive

# deps_step N LABEL CMD...: one line for the step, its output to the log.
deps_step() {
	local label="[$1/3] $2" t
	shift 2
	t=$(date +%s)
	printf 'deps: %s ... ' "$label"
	printf '\n### %s: %s\n' "$label" "$*" >>"$logf"
	if ! "$@" </dev/null >>"$logf" 2>&1; then
		echo "failed"
		echo "deps: the last lines of $logf:" >&2
		tail -n 20 "$logf" | sed 's/^/  | /' >&2
		die "deps: '$*' failed (log: $logf)"
	fi
	echo "ok ($(($(date +%s) - t)) s)"
}

deps_step 1 "package lists (apt-get update)" apt-get update
# shellcheck disable=SC2086
deps_step 2 "download" apt-get install -y --no-install-recommends \
	--download-only $missing
# shellcheck disable=SC2086
deps_step 3 "unpack and configure" apt-get install -y \
	--no-install-recommends $missing
echo "deps: installed:$missing"
