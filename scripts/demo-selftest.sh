#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo-selftest: prove that make demo can fail. The clients connect to
# a port where nothing listens; the demo must exit non-zero and say that
# the connections were refused, and that each client ran twice (busybox's
# insmod retries a failed module load). So does Linux's NVMe host: its
# connect must fail, and the I/O after it must not run.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

log=$build/demo-selftest.log
mkdir -p "$build"
step "demo-selftest: clients to port 7175, the server on 7174; NVMe host to 4421, the target on 4420"
rc=0
KIWI_DEMO_PORT=7174 KIWI_DEMO_CLIENT_PORT=7175 KIWI_DEMO_CONNECTIONS=1 \
	KIWI_DEMO_COUNT=0 KIWI_DEMO_NVME_PORT=4420 \
	KIWI_DEMO_NVME_CLIENT_PORT=4421 KIWI_DEMO_NVME_MIB=1 \
	bash "$top/scripts/demo.sh" >"$log" 2>&1 || rc=$?
sed -n '/^demo FAILED:/,$p' "$log"
[ "$rc" != 0 ] || die "the demo passed with nothing listening (log: $log)"
for run in loopback veth-ipv4 veth-ipv6 veth-rdma; do
	grep -q "^  $run: the client module did not load.*Connection refused" \
		"$log" || die "no refused connection reported for $run (log: $log)"
	grep -q "^  $run: 0 of 1 connections completed, 1 failed" "$log" ||
		die "no failed connection counted for $run (log: $log)"
	# busybox's insmod loads a module whose finit_module() failed once
	# more with init_module(): the second run must not hide the first
	grep -q "^  $run: the client ran 2 times" "$log" ||
		die "the client's second run was not reported for $run (log: $log)"
done
grep -q "kiwi_sample_client: conn 1: ADDR_RESOLVED ROUTE_RESOLVED REJECTED(-111)" \
	"$log" || die "the event trace lacks the REJECTED event (log: $log)"
grep -q "^  nvme-connect: failed (rc=" "$log" ||
	die "no failed NVMe connect reported (log: $log)"
grep -q "^  nvme-io: never ran" "$log" ||
	die "NVMe I/O reported as run without a controller (log: $log)"
echo "ok: the demo failed (exit $rc) and said why"
