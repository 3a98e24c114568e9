#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Boot the NVMe over Fabrics VM (tests/nvme/init) and judge it.

Each step of the VM is a case: it passes if the VM ran it and it ended
with status 0. The run as a whole also fails on a setup failure, a failed
rmmod, a kernel splat anywhere in the console, or a kmemleak report of
an object allocated after /init ran. Booting, the splat scan and the
boot-time leaks set aside are kiwi_vm.py's; the marker parser and the
kmemleak judgement are demo_vm.py's.

Prints one line per step, then "N passed, N failed" into --summary as
"PASS FAIL 0" for make check, followed by a line per failed step or
problem.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kiwi_vm  # noqa: E402
import demo_vm  # noqa: E402

STEPS = ["target", "connect", "rw-4k", "rw-64k", "rw-1m", "parallel-write",
         "parallel-read", "reconnect", "port-removal", "device-removal",
         "disconnect", "target-down"]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--kernel", required=True)
    p.add_argument("--initrd", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--summary", required=True)
    p.add_argument("--qemu", default="qemu-system-x86_64")
    p.add_argument("--memory", type=int, default=2048)
    p.add_argument("--cpus", type=int, default=2)
    p.add_argument("--append", default="")
    p.add_argument("--boot-timeout", type=int, default=180)
    p.add_argument("--suite-timeout", type=int, default=300,
                   help="seconds one step may take")
    args = p.parse_args()
    args.require_kmemleak = True
    os.makedirs(args.out, exist_ok=True)

    timeouts = kiwi_vm.run_vm(args, args.out)
    st = demo_vm.parse(kiwi_vm.read_lines(os.path.join(args.out,
                                                       "results.log")))
    console = kiwi_vm.read_lines(os.path.join(args.out, "console.log"))

    passed = failed = 0
    failures = []
    for name in STEPS:
        rc = st["ends"].get(name)
        says = " / ".join(st["says"].get(name, []))
        if rc == 0:
            passed += 1
            kiwi_vm.log(f"ok: {name}: {says}")
        else:
            failed += 1
            what = "did not run" if rc is None else f"status {rc}"
            kiwi_vm.log(f"FAILED: {name}: {what}{': ' + says if says else ''}")
            failures.append(f"{name}: {what}")
            for line in st["trace"].get(name, []):
                kiwi_vm.log("    " + line)

    problems = [f"timeout: {t} did not finish within its limit"
                for t in timeouts]
    if st["boot"] is None:
        problems.append("the VM never reached /init (see console.log)")
    problems += [f"setup failed: {s}" for s in st["setup_failed"]]
    problems += [f"rmmod {m} failed" for m in st["unload_failed"]]
    problems += demo_vm.check_leaks(st, args)
    if st["boot"] is not None and not st["done"] and not timeouts:
        problems.append("the VM stopped before finishing (see console.log)")
    problems += kiwi_vm.scan_console(console, ([], []), [])
    if problems:
        failed += 1
        kiwi_vm.log("\nnvme FAILED:")
        for pr in problems:
            kiwi_vm.log("  " + pr)
    kiwi_vm.log(f"logs: {args.out}/console.log, {args.out}/results.log")
    kiwi_vm.log(f"this VM: {passed} passed, {failed} failed")
    with open(args.summary, "w") as f:
        f.write(f"{passed} {failed} 0\n")
        f.writelines(p + "\n" for p in failures + problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
