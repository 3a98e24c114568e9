#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Boot make check's dkms-load VM (scripts/dkms-init) and judge it.

It passes only if Debian's stock kernel of the release DKMS built for
booted, loaded every module DKMS installed in the order given, softiw's
device on lo registered with kiwi_iwcm and went again on detach, every
module unloaded, the VM finished, and the console shows no kernel splat.
Booting and the splat scan are kiwi_vm.py's.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kiwi_vm  # noqa: E402

STEPS = ["attach-lo", "detach-lo"]


def parse(lines):
    st = {"boot": None, "loads": {}, "ends": {}, "says": {}, "unloads": {},
          "done": False}
    for raw in lines:
        m = kiwi_vm.MARK.search(raw.strip())
        if not m:
            continue
        what, rest = m.group(1), m.group(2) or ""
        if what == "BOOT":
            st["boot"] = rest
        elif what in ("LOAD", "UNLOAD", "END"):
            name, rc = rest.rsplit(" rc=", 1)
            st[{"LOAD": "loads", "UNLOAD": "unloads",
                "END": "ends"}[what]][name] = int(rc)
        elif what == "SAYS":
            name, _, msg = rest.partition(" ")
            st["says"].setdefault(name, []).append(msg)
        elif what == "DONE":
            st["done"] = True
    return st


def judge(st, args, timeouts, console):
    problems = [f"timeout: {t} did not finish within its limit"
                for t in timeouts]
    if st["boot"] is None:
        return problems + ["the VM never reached /init (see console.log)"]
    if st["boot"] != args.release:
        problems.append(f"booted {st['boot']}, not {args.release}")
    modules = args.modules.split()
    for m in modules:
        rc = st["loads"].get(m)
        if rc is None:
            problems.append(f"insmod {m}: never ran")
        elif rc:
            problems.append(f"insmod {m} failed (rc={rc}; see console.log)")
    if all(st["loads"].get(m) == 0 for m in modules):
        problems += kiwi_vm.step_problems(st, STEPS)
    for m in modules:
        if st["loads"].get(m) == 0 and st["unloads"].get(m) != 0:
            problems.append(f"rmmod {m} failed "
                            f"(rc={st['unloads'].get(m)})")
    if not st["done"] and not timeouts:
        problems.append("the VM stopped before finishing (see console.log)")
    problems += kiwi_vm.scan_console(console, ([], []), [])
    return problems


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--kernel", required=True)
    p.add_argument("--initrd", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--modules", required=True,
                   help="the modules /init loads, in order")
    p.add_argument("--release", required=True,
                   help="the kernel release the VM must boot")
    p.add_argument("--qemu", default="qemu-system-x86_64")
    p.add_argument("--memory", type=int, default=1024)
    p.add_argument("--cpus", type=int, default=2)
    p.add_argument("--append", default="")
    p.add_argument("--boot-timeout", type=int, default=180)
    p.add_argument("--suite-timeout", type=int, default=120)
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)

    timeouts = kiwi_vm.run_vm(args, args.out)
    st = parse(kiwi_vm.read_lines(os.path.join(args.out, "results.log")))
    console = kiwi_vm.read_lines(os.path.join(args.out, "console.log"))
    problems = judge(st, args, timeouts, console)
    for m in args.modules.split():
        if m in st["loads"]:
            kiwi_vm.log(f"vm: insmod {m}: rc={st['loads'][m]}")
    for name in STEPS:
        for msg in st["says"].get(name, []):
            kiwi_vm.log(f"vm: {name}: {msg}")
    kiwi_vm.log(f"logs: {args.out}/console.log, {args.out}/results.log")
    if problems:
        kiwi_vm.log("dkms-load FAILED:")
        for pr in problems:
            kiwi_vm.log("  " + pr)
        return 1
    kiwi_vm.log(f"dkms-load passed: {args.release} loaded "
                f"{', '.join(args.modules.split())}; softiw_lo registered "
                "and went; all unloaded; no kernel splat")
    return 0


if __name__ == "__main__":
    sys.exit(main())
