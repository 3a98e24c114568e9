#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the /init of kiwi's VMs (tests/vm/init, bench/vm-init,
# scripts/demo-init).
#
# The test network (tests/lib/net.c): a peer namespace, held open by a
# sleeping process whose pid goes to /run/kiwi-peer.pid, and a veth pair,
# kv0 here and kv1 there. IPv6 duplicate address detection is off in both
# namespaces so that the addresses are usable at once; kv1 keeps its IPv6
# address when a test takes it down (a silent peer) and up again.
peer=
in_peer() {
	nsenter -n -t "$peer" "$@"
}

testnet() {
	sysctl -qw net.ipv6.conf.all.accept_dad=0 &&
	sysctl -qw net.ipv6.conf.default.accept_dad=0 &&
	ip link set lo up || return 1
	unshare -n sleep 100000000 &
	peer=$!
	mkdir -p /run && echo "$peer" >/run/kiwi-peer.pid
	in_peer sysctl -qw net.ipv6.conf.all.accept_dad=0 &&
	in_peer sysctl -qw net.ipv6.conf.default.accept_dad=0 &&
	in_peer sysctl -qw net.ipv6.conf.all.keep_addr_on_down=1 &&
	in_peer ip link set lo up || return 2
	# busybox names the other end veth0
	ip link add kv0 type veth && ip link set veth0 name kv1 &&
	ip link set kv1 netns "$peer" || return 3
	ip addr add 198.18.0.1/24 dev kv0 &&
	ip -6 addr add fd00:198:18::1/64 dev kv0 &&
	ip link set kv0 up || return 4
	in_peer ip addr add 198.18.0.2/24 dev kv1 &&
	in_peer ip -6 addr add fd00:198:18::2/64 dev kv1 &&
	in_peer ip link set kv1 up || return 5
}
