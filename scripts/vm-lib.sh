# SPDX-License-Identifier: GPL-2.0
#
# Shell functions of the demo-style VMs' /init (scripts/demo-init,
# scripts/teardown-init), installed as /etc/kiwi-vmlib.sh. Markers go to
# ttyS1 (a file on the host) and to /dev/kmsg, in the format
# scripts/kiwi_vm.py follows: KIWI-BOOT, KIWI-BEGIN name, KIWI-END name
# rc=N, KIWI-DONE. Between KIWI-TRACE name and KIWI-TRACE-END come the
# kernel log lines of the sample modules, between KIWI-KMEMLEAK-BEGIN and
# KIWI-KMEMLEAK-END kmemleak's report.

out=/dev/ttyS1

mark() {
	echo "KIWI-$*" >"$out"
	echo "KIWI-$*" >/dev/kmsg
}

# The sample modules' lines logged since the last call.
trace() {
	mark "TRACE $1"
	dmesg -c | sed -n 's/^\[[ 0-9.]*\] //; /kiwi_sample_/p' >"$out"
	mark "TRACE-END $1"
}

# step NAME CMD...: run CMD between the markers of NAME, keep what it says.
# Sets name, msg and rc.
step() {
	name=$1
	shift
	mark "BEGIN $name"
	msg=$("$@" 2>&1)
	rc=$?
	[ -n "$msg" ] && echo "KIWI-SAYS $name $msg" >"$out"
	mark "END $name rc=$rc"
	return $rc
}

fail_setup() {
	mark "SETUP-FAILED $*"
	mark "DONE"
	reboot -f
}

# kmemleak reports an object only when it is older than five seconds and
# unchanged since the scan before: so wait, then scan twice. Nothing on a
# kernel without kmemleak.
kmemleak_report() {
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	leak=/sys/kernel/debug/kmemleak
	[ -w "$leak" ] || return 0
	sleep 6
	echo scan >"$leak" && echo scan >"$leak" ||
		mark "SETUP-FAILED kmemleak scan"
	mark "KMEMLEAK-BEGIN"
	cat "$leak" >"$out"
	mark "KMEMLEAK-END"
}
