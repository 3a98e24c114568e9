#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Follow the benchmark VM's results file while QEMU runs (scripts/bench.sh).

Prints each finished command (KIWI-PROGRESS) and, for every line the VM
writes, how much CPU time the QEMU process had used when the line
appeared, as "<line number> <CPU ns> <host monotonic ns>" lines in the
CPU file. The VM sleeps
around each timed command (bench/vm-init), so a sample taken a little
late still falls before the next command starts. Host CPU time does not
count the time the VM's vCPUs wait for a host core: it stays meaningful
when other work shares the machine, where wall time does not.

With a SNAP_PREFIX, each "KIWI-SNAP <name>" line asks the instruction
counting plugin (scripts/bench_insns.c, prof=SNAP_PREFIX) for a snapshot
named <name>: the name is written to SNAP_PREFIX.req.

usage: bench_watch.py PID RESULTS_FILE CPU_FILE [SNAP_PREFIX]
(PID: QEMU, or the timeout(1) that runs it; its children count too)
"""

import glob
import os
import sys
import time

POLL_S = 0.005


def children(pid):
    """The direct children of @pid (QEMU under timeout(1))."""
    kids = []
    for path in glob.glob("/proc/[0-9]*/stat"):
        try:
            with open(path) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[1] == str(pid):
            kids.append(int(path.split("/")[2]))
    return kids


def cpu_ns(pids):
    """Run time so far of every thread of @pids, ns."""
    total = 0
    for p in pids:
        for path in glob.glob(f"/proc/{p}/task/*/schedstat"):
            try:
                with open(path) as f:
                    total += int(f.read().split()[0])
            except (OSError, ValueError, IndexError):
                pass    # a thread that just ended
    return total


def request_snapshot(prefix, text):
    """Ask the plugin for the snapshot a KIWI-SNAP line names."""
    words = text.split("KIWI-SNAP ", 1)[1].split()
    if not words:
        return
    name = words[0]
    with open(prefix + ".tmp", "w") as f:
        print(name, file=f)
    os.rename(prefix + ".tmp", prefix + ".req")


def main():
    pid, results, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    snap = sys.argv[4] if len(sys.argv) > 4 else None
    offset, partial, lineno, pids = 0, b"", 0, [pid]
    with open(out, "w") as cpu:
        while True:
            alive = os.path.exists(f"/proc/{pid}")
            try:
                with open(results, "rb") as f:
                    f.seek(offset)
                    new = f.read()
            except OSError:
                new = b""
            if new:
                if len(pids) == 1:
                    pids += children(pid)
                now, wall = cpu_ns(pids), time.monotonic_ns()
                offset += len(new)
                *lines, partial = (partial + new).split(b"\n")
                for text in lines:
                    lineno += 1
                    print(f"{lineno} {now} {wall}", file=cpu, flush=True)
                    s = text.decode(errors="replace")
                    if snap and "KIWI-SNAP " in s:
                        request_snapshot(snap, s)
                    if "KIWI-PROGRESS " in s:
                        print("bench: " + s.split("KIWI-PROGRESS ", 1)[1],
                              flush=True)
            if not alive:
                break
            time.sleep(POLL_S)
    return 0


if __name__ == "__main__":
    sys.exit(main())
