#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the /init of the VMs that run Linux's NVMe over Fabrics over
# kiwi (tests/nvme/init, scripts/demo-init), as /etc/kiwi-nvme.sh.
#
# nvmet exports /dev/ram0 (brd) as namespace 1 of subsystem $nqn on a
# port of transport $trtype ("rdma", or "tcp") at $addr:$svc; the host
# connects through /dev/nvme-fabrics and its controller is nvme0, its
# namespace /dev/nvme0n1. The caller may set nqn, trtype, addr and svc
# before it sources this file (trtype also later).

nqn=${nqn:-kiwi-nvme-test}
trtype=${trtype:-rdma}
addr=${addr:-198.18.0.1}
svc=${svc:-4420}
cfs=/sys/kernel/config/nvmet

# wait_for TEST SECONDS: poll a shell test every 0.2 s.
wait_for() {
	n=$(($2 * 5))
	while [ $n -gt 0 ]; do
		eval "$1" && return 0
		sleep 0.2
		n=$((n - 1))
	done
	echo "timed out waiting for: $1"
	return 1
}

# now_ms: milliseconds since boot (busybox's date has only seconds).
now_ms() {
	read -r up _ </proc/uptime
	# "12.05": a leading 1 keeps the hundredths from reading as octal
	echo $(((${up%.*} * 100 + 1${up#*.} - 100) * 10))
}

# load_linux_modules MIB MODULE...: insmod Linux's modules from /lib/kiwi,
# in the order given; brd gets one ramdisk of MIB MiB.
load_linux_modules() {
	size=$(($1 * 1024))
	shift
	for m in "$@"; do
		case $m in
		brd) insmod /lib/kiwi/brd.ko rd_nr=1 rd_size=$size ;;
		*) insmod "/lib/kiwi/$m.ko" ;;
		esac || { echo "insmod $m failed"; return 1; }
	done
}

target_port() {
	mkdir -p "$cfs/ports/1" &&
	echo "$trtype" >"$cfs/ports/1/addr_trtype" &&
	echo ipv4 >"$cfs/ports/1/addr_adrfam" &&
	echo "$addr" >"$cfs/ports/1/addr_traddr" &&
	echo "$svc" >"$cfs/ports/1/addr_trsvcid" &&
	ln -s "$cfs/subsystems/$nqn" "$cfs/ports/1/subsystems/$nqn"
}

target_up() {
	mount -t configfs configfs /sys/kernel/config 2>/dev/null
	mkdir "$cfs/subsystems/$nqn" &&
	echo 1 >"$cfs/subsystems/$nqn/attr_allow_any_host" &&
	mkdir "$cfs/subsystems/$nqn/namespaces/1" &&
	echo -n /dev/ram0 >"$cfs/subsystems/$nqn/namespaces/1/device_path" &&
	echo 1 >"$cfs/subsystems/$nqn/namespaces/1/enable" &&
	target_port
}

target_down() {
	rm -f "$cfs/ports/1/subsystems/$nqn"
	rmdir "$cfs/ports/1" 2>/dev/null
	echo 0 >"$cfs/subsystems/$nqn/namespaces/1/enable"
	rmdir "$cfs/subsystems/$nqn/namespaces/1" &&
	rmdir "$cfs/subsystems/$nqn"
}

# connect [OPTIONS]: a controller to the target with two I/O queues of
# $queue_size (default 32) entries; prints what the fabrics device
# answered ("instance=N,cntlid=M").
connect() {
	opts="transport=$trtype,traddr=$addr,trsvcid=$svc,nqn=$nqn"
	opts="$opts,nr_io_queues=2,queue_size=${queue_size:-32}${1:+,$1}"
	exec 3<>/dev/nvme-fabrics || return 1
	echo "$opts" >&3 || { exec 3>&-; return 2; }
	read -r answer <&3
	exec 3>&-
	echo "$answer"
	wait_for "[ -b /dev/nvme0n1 ]" 30
}

disconnect() {
	[ -e /sys/class/nvme/nvme0 ] || return 0
	echo 1 >/sys/class/nvme/nvme0/delete_controller
	wait_for "[ ! -e /sys/class/nvme/nvme0 ]" 60
}

# ops NAME: softiw's count of work NAME so far (all devices); debugfs
# must be mounted.
ops() {
	awk -v k="$1" '$1 == k { print $2 }' /sys/kernel/debug/kiwi_softiw/ops
}
