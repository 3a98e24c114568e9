#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Boot the demo VM (scripts/demo-init), then print its event trace and
summary and judge it.

The run passes only if the VM set up its network, every client run loaded
(every connection completed), each run's summary shows all its
connections completed with all their messages and no error, the server
completed as many connections as the clients did, moved exactly the RDMA
run's messages by RDMA READ and by RDMA WRITE, lo's device was detached
while the server listened on it (its listener heard DEVICE_REMOVAL),
Linux's NVMe-oF host and target over kiwi (unless --nvme-mib is 0) loaded,
connected, wrote, read back equal data at both block sizes by the RDMA
operations NVMe-oF uses, disconnected and unloaded, the console has no
kernel splat, and kmemleak (on kiwi's test kernel) found nothing allocated
after /init ran. Booting, the splat scan and the boot-time leaks set
aside are kiwi_vm.py's.
"""

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kiwi_vm  # noqa: E402

RUNS = [("loopback", "127.0.0.1"), ("veth-ipv4", "198.18.0.1"),
        ("veth-ipv6", "fd00:198:18::1"), ("veth-rdma", "198.18.0.1")]
# Runs whose messages the server moves by RDMA READ and WRITE (rdma=1).
RDMA_RUNS = ["veth-rdma"]
SUMMARY = re.compile(r"(kiwi_sample_\w+): summary: (.*)$")


def parse(lines):
    """Markers, what each step said, trace lines and summaries."""
    st = {"boot": None, "network": None, "setup_failed": [], "ends": {},
          "says": {}, "trace": {}, "summary": {}, "summaries": {},
          "done": False, "unload_failed": [], "kmemleak": None}
    block = None
    for raw in lines:
        line = raw.strip()
        m = kiwi_vm.MARK.search(line)
        if m:
            what, rest = m.group(1), m.group(2) or ""
            if what == "BOOT":
                st["boot"] = rest
            elif what == "NETWORK":
                st["network"] = rest
            elif what == "SETUP-FAILED":
                st["setup_failed"].append(rest)
            elif what == "UNLOAD-FAILED":
                st["unload_failed"].append(rest)
            elif what == "END":
                name, rc = rest.rsplit(" rc=", 1)
                st["ends"][name] = int(rc)
            elif what == "SAYS":
                name, _, msg = rest.partition(" ")
                st["says"].setdefault(name, []).append(msg)
            elif what == "TRACE":
                block = rest
                st["trace"][block] = []
            elif what == "TRACE-END":
                block = None
            elif what == "KMEMLEAK-BEGIN":
                block = "kmemleak"
                st["kmemleak"] = []
            elif what == "KMEMLEAK-END":
                block = None
            elif what == "DONE":
                st["done"] = True
            continue
        if block == "kmemleak":
            if line:
                st["kmemleak"].append(line)
            continue
        if block is not None and line:
            st["trace"][block].append(line)
            s = SUMMARY.search(line)
            if s:
                st["summary"][block] = dict(
                    kv.split("=", 1) for kv in s.group(2).split())
                st["summaries"][block] = st["summaries"].get(block, 0) + 1
    return st


def num(summary, key):
    try:
        return int(summary.get(key, "-1"))
    except ValueError:
        return -1


def check_client(st, name, args):
    """Problems of one client run."""
    problems = []
    rc = st["ends"].get(name)
    said = " / ".join(st["says"].get(name, []))
    if rc is None:
        return [f"{name}: never ran"]
    if rc:
        problems.append(f"{name}: the client module did not load (rc={rc})"
                        + (f": {said}" if said else ""))
    s = st["summary"].get(name)
    if s is None:
        return problems + [f"{name}: no summary line from the client"]
    runs = st["summaries"].get(name, 0)
    if runs > 1:
        # busybox's insmod loads the module once more with init_module()
        # when finit_module() failed, so a failed run is followed by another
        problems.append(f"{name}: the client ran {runs} times; the runs "
                        f"before the last failed")
    want = args.connections
    if num(s, "completed") != want or num(s, "failed") != 0:
        problems.append(f"{name}: {num(s, 'completed')} of {want} "
                        f"connections completed, {num(s, 'failed')} failed")
    if num(s, "messages") != want * args.count:
        problems.append(f"{name}: {num(s, 'messages')} messages, want "
                        f"{want * args.count}")
    if num(s, "errors"):
        problems.append(f"{name}: {num(s, 'errors')} errors")
    return problems


def check_server(st, args):
    s = st["summary"].get("server-stop")
    if st["ends"].get("server-start"):
        said = " / ".join(st["says"].get("server-start", []))
        return [f"the server module did not load: {said}"]
    if s is None:
        return ["no summary line from the server"]
    clients = sum(num(st["summary"].get(n, {}), "completed")
                  for n, _ in RUNS if n in st["summary"])
    problems = []
    if num(s, "completed") != clients or num(s, "failed"):
        problems.append(f"server: {num(s, 'completed')} connections "
                        f"completed, {num(s, 'failed')} failed; the clients "
                        f"completed {clients}")
    if num(s, "errors"):
        problems.append(f"server: {num(s, 'errors')} errors")
    moved = sum(num(st["summary"].get(n, {}), "messages")
                for n in RDMA_RUNS if n in st["summary"])
    for op in ("reads", "writes"):
        if num(s, op) != moved:
            problems.append(f"server: {num(s, op)} RDMA {op}, want {moved} "
                            f"(the messages of {', '.join(RDMA_RUNS)})")
    return problems


def check_removal(st):
    """lo's device went while the server listened on 127.0.0.1."""
    rc = st["ends"].get("device-removal")
    if rc is None:
        return ["device-removal: never ran"]
    if rc:
        said = " / ".join(st["says"].get("device-removal", []))
        return [f"device-removal: detaching lo failed (rc={rc}): {said}"]
    told = [ln for ln in st["trace"].get("device-removal", [])
            if "listener 127.0.0.1:" in ln and "DEVICE_REMOVAL" in ln]
    if len(told) != 1:
        return [f"device-removal: the server's 127.0.0.1 listener heard "
                f"DEVICE_REMOVAL {len(told)} times, want once"]
    return []


# The NVMe-oF steps of demo-init, in order; each must end with rc=0.
NVME_STEPS = ["nvme-load", "nvme-target", "nvme-connect", "nvme-controller",
              "nvme-io", "nvme-disconnect", "nvme-target-down", "nvme-unload"]


def nvme_summary(st):
    """nvme-io's key=value line, or None."""
    for msg in st["says"].get("nvme-io", []):
        if msg.startswith("summary: "):
            return dict(kv.split("=", 1) for kv in msg[9:].split())
    return None


def check_nvme(st, args):
    """Linux's NVMe-oF host and target over kiwi moved the data."""
    if not args.nvme_mib:
        return []
    problems = kiwi_vm.step_problems(st, NVME_STEPS)
    s = nvme_summary(st)
    if s is None:
        return problems + ["nvme-io: no summary line"]
    want = args.nvme_mib * 1048576
    if num(s, "bytes") != want or s.get("equal") != "1":
        problems.append(f"nvme-io: {num(s, 'bytes')} bytes compared equal, "
                        f"want {want}")
    # Every 1 MiB write is an RDMA READ by the target from an MR the host
    # fast-registered, every read an RDMA WRITE and a SEND with Invalidate.
    blocks = args.nvme_mib
    for key in ("rdma_reads", "reg_mrs", "rdma_writes", "send_with_invs"):
        if num(s, key) < blocks:
            problems.append(f"nvme-io: softiw counted {num(s, key)} "
                            f"{key}, want at least {blocks}")
    return problems


def check_leaks(st, args):
    """kmemleak's report, when the kernel has kmemleak.

    The modules are gone when the scan runs, so the report's frames in
    them are bare addresses; console.log and results.log keep the report.
    """
    if st["kmemleak"] is None:
        if args.require_kmemleak and st["done"]:
            return ["kmemleak: the VM reported no scan (debugfs mounted? "
                    "kmemleak=on?)"]
        return []
    leaks, boot = kiwi_vm.split_boot_leaks(st["kmemleak"])
    if boot:
        kiwi_vm.log(f"vm: kmemleak: {boot} object(s) allocated before /init "
                    "ran set aside")
    if not leaks:
        return []
    objs = [ln for ln in leaks if ln.startswith("unreferenced object")]
    return [f"kmemleak: {len(objs)} unreferenced object(s); first: "
            f"{(objs or leaks)[0]}"]


def print_trace(st):
    kiwi_vm.log("\n== event trace")
    for name in (["server-start"] + [n for n, _ in RUNS] +
                 ["device-removal", "server-stop"]):
        lines = st["trace"].get(name)
        if lines is None:
            continue
        kiwi_vm.log(f"-- {name}")
        for line in lines:
            kiwi_vm.log("  " + line)


def print_summary(st):
    kiwi_vm.log("\n== summary")
    head = (f"{'run':<10} {'address':<16} {'conns':>5} {'done':>5} "
            f"{'failed':>6} {'messages':>8} {'bytes':>10} {'errors':>6} "
            f"{'time':>8}")
    kiwi_vm.log(head)
    rows = [(n, a, n) for n, a in RUNS] + [("server", "(all runs)",
                                            "server-stop")]
    for label, addr, key in rows:
        s = st["summary"].get(key)
        if s is None:
            kiwi_vm.log(f"{label:<10} {addr:<16} {'(no summary)':>5}")
            continue
        ms = num(s, "elapsed_ms")
        kiwi_vm.log(f"{label:<10} {addr:<16} {num(s, 'connections'):>5} "
                    f"{num(s, 'completed'):>5} {num(s, 'failed'):>6} "
                    f"{num(s, 'messages'):>8} {num(s, 'bytes'):>10} "
                    f"{num(s, 'errors'):>6} {ms / 1000:>7.2f}s")
    s = st["summary"].get("server-stop")
    if s is not None:
        kiwi_vm.log(f"server: {num(s, 'reads')} RDMA READs and "
                    f"{num(s, 'writes')} RDMA WRITEs moved the messages of "
                    f"{', '.join(RDMA_RUNS)}")


def rate(nbytes, ms):
    return f"{nbytes / 1e6 / (ms / 1000):8.1f} MB/s" if ms > 0 else "       -"


def print_nvme(st, args):
    if not args.nvme_mib:
        return
    kiwi_vm.log("\n== NVMe over Fabrics (Linux's nvme-rdma and nvmet-rdma "
                "over kiwi)")
    for name in ("nvme-connect", "nvme-controller"):
        for msg in st["says"].get(name, []):
            kiwi_vm.log(f"{name}: {msg}")
    s = nvme_summary(st)
    if s is None:
        kiwi_vm.log("(no summary)")
        return
    kiwi_vm.log(f"{'I/O':<18} {'bytes':>10} {'time':>9} {'rate':>13}")
    big, small = num(s, "bytes"), num(s, "small_bytes")
    for label, nbytes, key in (("write 1 MiB", big, "write_ms"),
                               ("read 1 MiB", big, "read_ms"),
                               ("write 4 KiB", small, "small_write_ms"),
                               ("read 4 KiB", small, "small_read_ms")):
        ms = num(s, key)
        kiwi_vm.log(f"{label:<18} {nbytes:>10} {ms / 1000:>8.2f}s "
                    f"{rate(nbytes, ms):>13}")
    kiwi_vm.log(f"{s.get('device', '?')}: read back equal; softiw moved it "
                f"by {num(s, 'rdma_reads')} RDMA READs, "
                f"{num(s, 'reg_mrs')} fast registrations, "
                f"{num(s, 'rdma_writes')} RDMA WRITEs and "
                f"{num(s, 'send_with_invs')} SENDs with Invalidate")


def arguments(doc, count_help=None):
    """The command line scripts/demo.sh gives a demo-style VM's judge."""
    p = argparse.ArgumentParser(description=doc.split("\n")[0])
    p.add_argument("--kernel", required=True)
    p.add_argument("--initrd", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--connections", type=int, required=True)
    p.add_argument("--count", type=int, required=True, help=count_help)
    p.add_argument("--nvme-mib", type=int, default=0,
                   help="MiB the NVMe-oF step moves (0: no NVMe step)")
    p.add_argument("--qemu", default="qemu-system-x86_64")
    p.add_argument("--memory", type=int, default=1024)
    p.add_argument("--cpus", type=int, default=2)
    p.add_argument("--append", default="")
    p.add_argument("--boot-timeout", type=int, default=180)
    p.add_argument("--suite-timeout", type=int, default=300)
    p.add_argument("--require-kmemleak", action="store_true",
                   help="fail if the VM reports no kmemleak scan")
    return p.parse_args()


def boot(args):
    """Run the VM; (state, console, problems of booting and setting up)."""
    os.makedirs(args.out, exist_ok=True)
    timeouts = kiwi_vm.run_vm(args, args.out)
    st = parse(kiwi_vm.read_lines(os.path.join(args.out, "results.log")))
    console = kiwi_vm.read_lines(os.path.join(args.out, "console.log"))
    problems = [f"timeout: {t} did not finish within its limit"
                for t in timeouts]
    if st["boot"] is None:
        problems.append("the VM never reached /init (see console.log)")
    problems += [f"setup failed: {s}" for s in st["setup_failed"]]
    return st, console, problems, timeouts


def main():
    args = arguments(__doc__)
    st, console, problems, timeouts = boot(args)
    if st["boot"] is not None and not st["setup_failed"]:
        for name, _ in RUNS:
            problems += check_client(st, name, args)
        problems += check_server(st, args)
        problems += check_removal(st)
        problems += check_nvme(st, args)
    problems += [f"rmmod {m} failed" for m in st["unload_failed"]]
    problems += check_leaks(st, args)
    if st["boot"] is not None and not st["done"] and not timeouts:
        problems.append("the VM stopped before finishing (see console.log)")
    problems += kiwi_vm.scan_console(console, ([], []), [])

    print_trace(st)
    print_summary(st)
    print_nvme(st, args)
    kiwi_vm.log(f"\nlogs: {args.out}/console.log, {args.out}/results.log")
    if problems:
        kiwi_vm.log("\ndemo FAILED:")
        for pr in problems:
            kiwi_vm.log("  " + pr)
        return 1
    total = sum(num(st["summary"][n], "completed") for n, _ in RUNS)
    nvme = (f", {args.nvme_mib} MiB over NVMe-oF read back equal"
            if args.nvme_mib else "")
    kiwi_vm.log(f"\ndemo passed: {total} connections completed, "
                f"{args.count} messages each{nvme}, no kernel splat")
    return 0


if __name__ == "__main__":
    sys.exit(main())
