#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where the guest's instructions went between two snapshots of the
instruction counting plugin (scripts/bench_insns.c, KIWI_BENCH_INSNS=prof):
per function and per module, per connection made in between.

A benchmark script (KIWI_BENCH_SCRIPT) brackets what it measures with
"snap NAME.0" and "snap NAME.1" (bench/vm-init), and calls "symbols"
once, which writes the guest's text symbols as KIWI-SYM lines. Each NAME
is a column: the instructions of snapshot NAME.1 less those of NAME.0,
divided by the connections that the rate runs between the two made (by
1 when there were none). The count includes what the idle VM executes in
the pauses between the snapshots (ticks, load balancing: about 2 million
instructions a second), about 3,000 per connection more than the rate
run's own count (KIWI-PERCONN) in a run of 2,000 at c=16. Functions are
ranked by their largest count in a column with connections.

usage: bench_prof.py RESULTS PREFIX [TOP]
(RESULTS: the VM's results file; PREFIX: the plugin's prof=PREFIX; TOP:
functions listed, default 40)
"""

import bisect
import collections
import json
import os
import re
import sys

SNAP = re.compile(r"KIWI-SNAP (\S+)")
SYM = re.compile(r"KIWI-SYM ([0-9a-f]+) (\S+)(?: \[(\S+)\])?")
BENCH = re.compile(r"KIWI-BENCH (\{.*\}) rc=")


def read_results(path):
    """The symbols sorted by address, and per snapshot pair NAME (in
    order) the connections made between NAME.0 and NAME.1."""
    syms, pairs, open_name = [], {}, None
    with open(path, errors="replace") as f:
        for line in f:
            m = SYM.search(line)
            if m:
                mod = m.group(3) or "kernel"
                syms.append((int(m.group(1), 16), m.group(2), mod))
                continue
            m = SNAP.search(line)
            if m:
                name, _, end = m.group(1).rpartition(".")
                if end == "0":
                    open_name = name
                    pairs[name] = 0
                elif end == "1" and name == open_name:
                    open_name = None
                continue
            m = BENCH.search(line)
            if m and open_name:
                rec = json.loads(m.group(1))
                if rec.get("cmd") == "rate":
                    pairs[open_name] += rec["n"] - rec["failed"]
    syms.sort()
    return syms, pairs


def read_snapshot(path):
    """Instructions executed so far by block address."""
    counts = collections.Counter()
    with open(path) as f:
        for line in f:
            addr, n = line.split()
            counts[int(addr, 16)] += int(n)
    return counts


def by_function(syms, before, after, conns):
    """Instructions per connection between two snapshots, by (function,
    module); blocks below any kernel symbol count as "user"."""
    addrs = [s[0] for s in syms]
    out = collections.Counter()
    for addr, n in after.items():
        n -= before.get(addr, 0)
        if n <= 0:
            continue
        i = bisect.bisect_right(addrs, addr) - 1
        key = (syms[i][1], syms[i][2]) if i >= 0 else ("user", "user")
        out[key] += n / max(conns, 1)
    return out


def main():
    results, prefix = sys.argv[1:3]
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    syms, pairs = read_results(results)
    if not syms:
        sys.exit("bench_prof: no KIWI-SYM lines (call symbols in the script)")
    cols = {}
    for name, conns in pairs.items():
        files = [f"{prefix}.{name}.{i}" for i in (0, 1)]
        if not all(os.path.exists(f) for f in files):
            print(f"bench_prof: {name}: a snapshot is missing",
                  file=sys.stderr)
            continue
        cols[name] = by_function(syms, read_snapshot(files[0]),
                                 read_snapshot(files[1]), conns)
        print(f"{name}: {conns} connections, "
              f"{sum(cols[name].values()) / 1e3:.1f}k instructions each")
    if not cols:
        sys.exit("bench_prof: no snapshot pairs")
    names = list(cols)
    head = "".join(f"{n[:13]:>14}" for n in names)
    mods = collections.defaultdict(dict)
    for name, c in cols.items():
        for (_, mod), v in c.items():
            mods[mod][name] = mods[mod].get(name, 0) + v
    print(f"\ninstructions per connection by module\n{'':<44}{head}")
    for mod in sorted(mods, key=lambda m: -max(mods[m].values())):
        if max(mods[mod].values()) < 0.5:
            continue
        print(f"{mod[:44]:<44}" + "".join(
            f"{mods[mod].get(n, 0):>14.0f}" for n in names))
    keys = set().union(*cols.values())
    ranked = [cols[n] for n in names if pairs[n]] or list(cols.values())
    rank = sorted(keys, key=lambda k: -max(c.get(k, 0) for c in ranked))
    print(f"\ninstructions per connection, top {top} functions\n"
          f"{'':<44}{head}")
    for k in rank[:top]:
        label = k[0] if k[1] == "kernel" else f"{k[0]} [{k[1]}]"
        print(f"{label[:44]:<44}" + "".join(
            f"{cols[n].get(k, 0):>14.0f}" for n in names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
