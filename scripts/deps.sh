#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages a make target needs, only those missing.
# usage: scripts/deps.sh build|check|demo|bench|all
set -euo pipefail

build_pkgs="make gcc linux-headers-amd64 flex bison bc libelf-dev libssl-dev kmod"
check_pkgs="$build_pkgs linux-source-6.1 sparse cpio gzip busybox-static git binutils
	qemu-system-x86 python3 perl xz-utils rsync iproute2 rdmacm-utils
	ibverbs-providers"
demo_pkgs="$build_pkgs linux-image-amd64 linux-source-6.1 cpio gzip busybox-static
	qemu-system-x86 rsync xz-utils zstd python3 kmod"
# make bench needs what make check needs (iproute2 for siw links included).
bench_pkgs=$check_pkgs

case "${1:-all}" in
build) want=$build_pkgs ;;
check) want=$check_pkgs ;;
demo) want=$demo_pkgs ;;
bench) want=$bench_pkgs ;;
all) want="$check_pkgs $demo_pkgs $bench_pkgs" ;;
*) echo "usage: $0 build|check|demo|bench|all" >&2; exit 2 ;;
esac

missing=
for p in $want; do
	case " $missing " in *" $p "*) continue ;; esac
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing Debian packages:$missing (run as root, or install them)" >&2
	exit 1
fi
echo "deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >&2
