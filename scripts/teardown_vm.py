#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Boot the teardown VM (scripts/teardown-init), then judge each round.

A round passes if kiwi and the samples loaded, the client moved data
before the removal, the removal and every rmmod after it returned within
the VM's bound, the client ended, and what the ULPs saw fits the removal:
connections cut mid-transfer failed (and, when the device went, the
server's two listeners heard DEVICE_REMOVAL once each), or, when only the
namespace went, every connection completed. The console must have no
kernel splat and kmemleak (on kiwi's test kernel) nothing allocated after
/init ran.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import demo_vm  # noqa: E402
import kiwi_vm  # noqa: E402

# Round name: (connections cut mid-transfer, server listeners removed).
ROUNDS = {
    "provider-first": (True, True),
    "ulp-first": (True, False),
    "rdmacm-first": (True, False),
    "netdev-gone": (True, True),
    "netns-gone": (False, False),
}
STEPS = ["up", "traffic", "remove", "client", "unload"]
LISTENERS = ["198.18.0.1:", "[fd00:198:18::1]:"]
CLIENT = re.compile(r"kiwi_sample_client: summary: (.*)$")


def client_summaries(st, name):
    """The client's summary lines of round @name, first run first."""
    return [dict(kv.split("=", 1) for kv in m.group(1).split())
            for m in map(CLIENT.search, st["trace"].get(name, [])) if m]


def check_round(st, name, args):
    cut, removed = ROUNDS[name]
    problems = kiwi_vm.step_problems(st, [f"{name}-{s}" for s in STEPS])
    if problems:
        return problems
    runs = client_summaries(st, name)
    if not runs:
        return [f"{name}: no summary line from the client"]
    s = runs[0]
    if demo_vm.num(s, "messages") <= 0:
        problems.append(f"{name}: the client moved no message")
    said = " ".join(st["says"].get(f"{name}-client", []))
    if cut:
        if demo_vm.num(s, "failed") != args.connections:
            problems.append(f"{name}: {demo_vm.num(s, 'failed')} of "
                            f"{args.connections} connections failed; the "
                            "removal came mid-transfer, want all")
        if "client_rc=0" in said:
            problems.append(f"{name}: the client loaded, want it to fail")
    else:
        if demo_vm.num(s, "completed") != args.connections:
            problems.append(f"{name}: {demo_vm.num(s, 'completed')} of "
                            f"{args.connections} connections completed")
        if demo_vm.num(s, "messages") != args.connections * args.count:
            problems.append(f"{name}: {demo_vm.num(s, 'messages')} "
                            f"messages, want {args.connections * args.count}")
        if "client_rc=0" not in said:
            problems.append(f"{name}: the client failed ({said})")
    if removed:
        for lst in LISTENERS:
            told = [ln for ln in st["trace"].get(name, [])
                    if f"listener {lst}" in ln and "DEVICE_REMOVAL" in ln]
            if len(told) != 1:
                problems.append(f"{name}: the server's listener {lst} heard "
                                f"DEVICE_REMOVAL {len(told)} times, want "
                                "once")
    return problems


def main():
    args = demo_vm.arguments(
        __doc__, "messages per connection of netns-gone's client")
    st, console, problems, timeouts = demo_vm.boot(args)
    if st["boot"] is not None and not st["setup_failed"]:
        for name in ROUNDS:
            problems += check_round(st, name, args)
    problems += [f"rmmod {m} failed" for m in st["unload_failed"]]
    problems += demo_vm.check_leaks(st, args)
    if st["boot"] is not None and not st["done"] and not timeouts:
        problems.append("the VM stopped before finishing (see console.log)")
    problems += kiwi_vm.scan_console(console, ([], []), [])

    for name in ROUNDS:
        for ln in st["trace"].get(name, []):
            kiwi_vm.log(f"{name}: {ln}")
        for step in STEPS:
            for msg in st["says"].get(f"{name}-{step}", []):
                kiwi_vm.log(f"{name}-{step}: {msg}")
    kiwi_vm.log(f"\nlogs: {args.out}/console.log, {args.out}/results.log")
    if problems:
        kiwi_vm.log("\nteardown FAILED:")
        for pr in problems:
            kiwi_vm.log("  " + pr)
        return 1
    kiwi_vm.log(f"\nteardown passed: {len(ROUNDS)} rounds, each removal "
                "under live traffic returned, no kernel splat")
    return 0


if __name__ == "__main__":
    sys.exit(main())
