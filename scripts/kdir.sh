#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Print the kernel build directory kiwi builds against by default: the
# running kernel's, when it has one, else the newest Debian
# linux-headers-*-amd64. Prints nothing when neither exists.
running=/lib/modules/$(uname -r)/build
if [ -d "$running" ]; then
	echo "$running"
	exit 0
fi
ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1
