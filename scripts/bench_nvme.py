#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the NVMe-oF benchmark VM's results (bench/nvme-init) into a table
of IOPS and MB/s per stack with the ratios kiwi/NVMe-TCP and kiwi/Linux,
and say for each row whether the targets of the data-path issue are met:
at least 0.9x NVMe/TCP, and at least 1.5x Linux's nvme-rdma over siw (or
0.9x NVMe/TCP where 1.5x siw would exceed NVMe/TCP), never below siw.
Writes the rows as "datapath" into OUT_JSON (keeping what else is there).
Exits non-zero if a stack or load is missing or failed, or the kernel
complained.

usage: bench_nvme.py RESULTS CONSOLE OUT_JSON"""

import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kiwi_vm  # noqa: E402

STACKS = ("kiwi", "linux", "tcp")
JSON_NAME = {"kiwi": "kiwi", "linux": "linux", "tcp": "nvme_tcp"}
LOADS = (("randread", 4096, 32), ("randwrite", 4096, 32),
         ("read", 1048576, 4), ("write", 1048576, 4))
LINE = re.compile(r"KIWI-NVME (\S+) (\S+) (\d+) (\d+) (.*) rc=(\d+)$")


def parse(lines):
    res, fails, done = {}, [], False
    for line in lines:
        line = line.strip()
        m = LINE.search(line)
        if m:
            stack, mode, bs, depth, rest, rc = m.groups()
            vals = dict(kv.split("=", 1) for kv in rest.split()
                        if "=" in kv)
            res[(stack, mode, int(bs), int(depth))] = (int(rc), vals)
        elif "KIWI-FAIL" in line:
            fails.append(line.split("KIWI-FAIL", 1)[1].strip())
        elif "KIWI-DONE" in line:
            done = True
    return res, fails, done


def value(rec, bs):
    """IOPS for 4 KiB loads, MB/s for 1 MiB ones."""
    _, vals = rec
    return float(vals["iops"] if bs == 4096 else vals["mbps"])


def verdict(kiwi, linux, tcp):
    if kiwi < linux:
        return "no: below siw"
    want_tcp = kiwi >= 0.9 * tcp
    want_siw = kiwi >= 1.5 * linux or 1.5 * linux > tcp
    if want_tcp and want_siw:
        return "yes"
    if not want_tcp:
        return f"no: {kiwi / tcp:.2f}x NVMe/TCP, want 0.9x"
    return f"no: {kiwi / linux:.2f}x siw, want 1.5x"


def main():
    if len(sys.argv) != 4:
        print(__doc__.split("\n\n")[-1], file=sys.stderr)
        return 2
    res, fails, done = parse(kiwi_vm.read_lines(sys.argv[1]))
    console = kiwi_vm.read_lines(sys.argv[2])
    problems = [f"the VM failed: {f}" for f in fails]
    if not done and not fails:
        problems.append("the VM did not finish (see the console log)")
    rows = []
    print(f"{'load':<22} {'unit':<5} {'kiwi':>9} {'linux':>9} "
          f"{'nvme-tcp':>9} {'k/tcp':>6} {'k/lin':>6}  "
          f"{'kiwi p99':>9}  target met")
    for mode, bs, depth in LOADS:
        recs = {}
        for s in STACKS:
            rec = res.get((s, mode, bs, depth))
            if rec is None:
                problems.append(f"{s} {mode} {bs}: no result")
            elif rec[0] or "iops" not in rec[1]:
                problems.append(f"{s} {mode} {bs}: failed: {rec}")
            else:
                recs[s] = rec
        size = "4K" if bs == 4096 else "1M"
        unit = "IOPS" if bs == 4096 else "MB/s"
        label = f"{mode} {size} qd{depth}"
        if len(recs) != len(STACKS):
            print(f"{label:<22} (incomplete)")
            continue
        k, lnx, t = (value(recs[s], bs) for s in STACKS)
        p99 = recs["kiwi"][1].get("p99_us", "?")
        print(f"{label:<22} {unit:<5} {k:>9.1f} {lnx:>9.1f} {t:>9.1f} "
              f"{k / t:>6.2f} {k / lnx:>6.2f}  {p99:>7}us  "
              f"{verdict(k, lnx, t)}")
        row = {"test": f"nvme {mode}", "size": bs, "depth": depth,
               "unit": unit}
        row.update({JSON_NAME[s]: value(recs[s], bs) for s in STACKS})
        rows.append(row)
    problems += kiwi_vm.scan_console(console, ([], []), [])

    out = sys.argv[3]
    data = {}
    if os.path.exists(out):
        with open(out) as f:
            data = json.load(f)
    kept = [r for r in data.get("datapath", [])
            if not r.get("test", "").startswith("nvme ")]
    data["datapath"] = kept + rows
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        json.dump(data, f, indent=1)
    print(f"rows: {out} (datapath)")
    if problems:
        print("bench-nvme FAILED:")
        for p in problems:
            print("  " + p)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
