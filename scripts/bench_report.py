#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the benchmark VM's results (bench/vm-init) into a table of
numbers and ratios, saved as JSON. Exits non-zero if the run was not
complete: a scenario failed, a connection failed, or the kernel
complained (BUG, WARNING, Oops, panic, a call trace).

usage: bench_report.py RESULTS CONSOLE OUT_JSON [CPU [MACHINE [INSNS]]]
       bench_report.py --lines RESULTS CPU [INSNS]
CPU is scripts/bench_watch.py's file, INSNS scripts/bench_insns.c's.
The second form prints the VM's KIWI- lines, each rate result followed
by its host CPU and guest instructions per connection (for
KIWI_BENCH_SCRIPT runs)."""

import bisect
import json
import re
import sys

STACKS = ("tcp", "kiwi", "linux")
DP_OPS = ("send", "write", "read")
# The baseline with an rdma_cm stack's client steps and no iWARP
# connection (bench/rdma.c), at concurrency 16.
FLOORS = ("kiwi-floor", "linux-floor")
MARK = re.compile(r"KIWI-([A-Z]+) ?(.*)$")
SPLAT = re.compile(r"(BUG:|WARNING:|Oops|Kernel panic|Call Trace:|"
                   r"refcount_t:|general protection fault)")


def measure(rec, cpu, insns, start, end):
    """Give a timed command's result @rec what the host saw between its
    KIWI-START line @start and its result's line @end: QEMU's CPU time,
    and the guest instructions if @insns."""
    if not (start and start in cpu and end in cpu):
        return
    rec["cpu_ns"] = cpu[end][0] - cpu[start][0]
    if insns:
        rec["insns"] = (insns_at(insns, cpu[end][1]) -
                        insns_at(insns, cpu[start][1]))


def parse(lines, cpu, insns=None):
    """Per stack: the scenario results in order, and slab totals. @cpu
    maps a line number (from 1) to QEMU's CPU time, ns, and the host's
    monotonic clock when the host saw the line (scripts/bench_watch.py);
    a timed command's result gets the CPU time since its KIWI-START line,
    and with @insns (read_insns()) the guest instructions executed since;
    a result after a KIWI-ROUND line gets that main round's number."""
    runs = {s: [] for s in STACKS + FLOORS}
    slab, problems, notes, done, start = {}, [], [], False, None
    main_round = None
    for lineno, line in enumerate(lines, 1):
        m = MARK.search(line.strip())
        if not m:
            continue
        what, rest = m.groups()
        if what == "START":
            start = lineno
        elif what == "BENCH":
            body, rc = rest.rsplit(" rc=", 1)
            rec = json.loads(body) if body.startswith("{") else {}
            rec["rc"] = int(rc)
            measure(rec, cpu, insns, start, lineno)
            start = None
            if main_round is not None:
                rec["round"] = main_round
            if rec.get("stack") in runs:
                runs[rec["stack"]].append(rec)
            what = (f"{rec.get('stack', '?')} {rec.get('cmd', '?')}"
                    f"{' c=%d' % rec['conc'] if 'conc' in rec else ''}: "
                    f"rc={rec['rc']} failed={rec.get('failed', 0)} "
                    f"err={rec.get('err', 0)}")
            # Linux's stack failing connections or a data-path transfer
            # is a measurement of it; kiwi, the baseline or a floor
            # failing one fails the run.
            linux = rec.get("stack") == "linux"
            if linux and rec["rc"] and rec.get("cmd") in DP_OPS + ("ping",):
                notes.append(what)
            elif rec["rc"] or (rec.get("failed") and not linux):
                problems.append(what)
            elif rec.get("failed"):
                notes.append(what)
        elif what == "SLAB":
            tag, val = rest.split()
            slab[tag] = int(val)
        elif what == "SLABCACHE":
            stack, cache, val = rest.split()
            slab.setdefault(f"{stack}-caches", {})[cache] = int(val)
        elif what == "PHASE":
            stack, name = rest.split()
            if stack in runs:
                runs[stack].append({"cmd": "phase", "name": name})
        elif what == "ROUND":
            main_round = int(rest)
        elif what == "FAIL":
            problems.append("VM setup: " + rest)
        elif what == "DONE":
            done = True
    if not done:
        problems.append("the VM did not finish every scenario")
    return runs, slab, problems, notes


def rate(rec):
    ok = rec["n"] - rec["failed"]
    return ok / (rec["elapsed_ns"] / 1e9) if rec["elapsed_ns"] else 0.0


def cpu_ms(rec):
    """Host CPU time per connection that opened, ms, if measured."""
    ok = rec["n"] - rec["failed"]
    return rec["cpu_ns"] / 1e6 / ok if ok and "cpu_ns" in rec else None


def insns_k(rec):
    """Guest instructions per connection that opened, thousands."""
    ok = rec["n"] - rec["failed"]
    return rec["insns"] / 1e3 / ok if ok and "insns" in rec else None


def window_rates(rec):
    """The rates of a run's windows (bench/core.c), connections/s."""
    m = rec.get("win_n", 0)
    return [m / (ns / 1e9) for ns in rec.get("win_ns", []) if ns]


def median(xs):
    xs = sorted(x for x in xs if x is not None)
    if not xs:
        return None
    mid = len(xs) // 2
    return xs[mid] if len(xs) % 2 else (xs[mid - 1] + xs[mid]) / 2


def main_line(recs):
    """The rounds of the main scenario at one concurrency: each number is
    the median of the rounds' (a round's rate is its connections over its
    wall-clock time); the rounds' rates show the spread, and so do the
    windows of every round. "by_round" keeps every round's rate and p99
    by round number (KIWI-ROUND; the order of the runs without it), and
    so do the guest instructions per connection when they were counted,
    for ratios taken round by round.
    """
    keys = [str(r.get("round", i)) for i, r in enumerate(recs)]
    by_round = {"rate": {k: rate(r) for k, r in zip(keys, recs)
                         if "elapsed_ns" in r},
                "p99_ms": {k: r["p99_ns"] / 1e6 for k, r in zip(keys, recs)
                           if r.get("p99_ns")},
                "insns_k": {k: insns_k(r) for k, r in zip(keys, recs)
                            if "elapsed_ns" in r and "insns" in r}}
    recs = [r for r in recs if "elapsed_ns" in r]  # a failed one is {}

    def med(key, scale=1):
        m = median([r.get(key) for r in recs])
        return m / scale if m is not None else None

    wins = [w for r in recs for w in window_rates(r)]
    rates = [rate(r) for r in recs]
    stages = [r.get("stages_us", []) for r in recs]
    width = min((len(x) for x in stages), default=0)
    return {"rate": median(rates), "round_rates": rates,
            "by_round": by_round,
            "rate_min": min(rates) if rates else None,
            "rate_max": max(rates) if rates else None,
            "win_rates": wins,
            "win_min": min(wins) if wins else None,
            "win_max": max(wins) if wins else None,
            "cpu_ms": median([cpu_ms(r) for r in recs]),
            "insns_k": median([insns_k(r) for r in recs]),
            "p50_ms": med("p50_ns", 1e6),
            "p99_ms": med("p99_ns", 1e6),
            "close_ms": med("close_ns", 1e6),
            "stages_us": [median([x[i] for x in stages])
                          for i in range(width)],
            "srv_req_us": med("srv_req_us") or 0,
            "srv_accept_us": med("srv_accept_us") or 0}


# What a round of the idle and listener scenarios measures: its rate, and
# two costs per connection (host CPU, guest instructions when counted). A
# round is set against its rounds without as with / without for the rate
# and as without / with for a cost, so that 0.90 reads "10% worse" either
# way: the key of each ratio, the value's key, and whether it is a cost.
MEASURES = (("rel", "rate", False), ("rel_cpu", "cpu_ms", True),
            ("rel_insns", "insns_k", True))


def round_values(rec):
    """A scenario round's values, in the order of MEASURES."""
    return (rate(rec), cpu_ms(rec), insns_k(rec))


def relative(vals, bases):
    """A round's ratios to the values of its rounds without (@bases)."""
    return [ratio(b, v) if cost else ratio(v, b)
            for v, b, (_, _, cost) in zip(vals, bases, MEASURES)]


def compare(rounds, rels, none, extra):
    """One "with X" line from the rounds with X and without it (each a
    tuple of round_values()), and each round's ratios to its rounds
    without (relative())."""
    def stats(xs, name):
        xs = [x for x in xs if x is not None]
        return {name: median(xs), name + "_min": min(xs) if xs else None,
                name + "_max": max(xs) if xs else None}
    out = {"rounds_with": rounds, "rounds_none": none}
    for i, (key, field, _) in enumerate(MEASURES):
        out[field] = median([x[i] for x in rounds])
        out[field + "_none"] = median([x[i] for x in none])
        out.update(stats([r[i] for r in rels], key))
    out.update(extra)
    return out


def ns_per_insn(vals):
    """The VM's speed in a round: host CPU ns per guest instruction."""
    _, cpu, insns = vals
    return cpu * 1e3 / insns if cpu and insns else None


def idle_line(seq, with_phase="idle-with"):
    """Rounds without, with, without idle connections: each round with
    them against the median of every round without."""
    with_rounds = [v for p, v in seq if p == with_phase]
    first = next((i for i, (p, _) in enumerate(seq) if p == with_phase),
                 len(seq))
    before = [v for p, v in seq[:first] if p == "idle-none"]
    after = [v for p, v in seq[first:] if p == "idle-none"]
    bases = [median([x[i] for x in before + after])
             for i in range(len(MEASURES))]
    rels = [relative(v, bases) for v in with_rounds]
    return compare(with_rounds, rels, before + after,
                   {"rate_none_before": median([x[0] for x in before]),
                    "rate_none_after": median([x[0] for x in after]),
                    "ns_per_insn": [median([ns_per_insn(x) for x in xs])
                                    for xs in (before, with_rounds, after)]})


def listener_line(seq):
    """Alternating rounds: each round with the listeners against the mean
    of the rounds without on either side of it."""
    seq = [x for x in seq if x[0].startswith("listen-")]
    with_rounds, none, rels = [], [], []
    for i, (p, v) in enumerate(seq):
        if p == "listen-none":
            none.append(v)
            continue
        with_rounds.append(v)
        near = [seq[j][1] for j in (i - 1, i + 1)
                if 0 <= j < len(seq) and seq[j][0] == "listen-none"]
        # of one or two rounds the median is their mean
        bases = [median([x[k] for x in near])
                 for k in range(len(MEASURES))]
        rels.append(relative(v, bases))
    return compare(with_rounds, rels, none, {})


def summarize(recs, slab, stack):
    """Name each rate run by the scenario (KIWI-PHASE) it belongs to."""
    out, phase, seq, main = {}, "main", [], {}
    for rec in recs:
        cmd = rec.get("cmd")
        if cmd == "phase":
            phase = rec["name"]
        elif cmd == "rate" and phase == "main":
            main.setdefault(rec["conc"], []).append(rec)
        elif cmd == "rate":
            seq.append((phase, round_values(rec)))
        elif cmd == "hold" and phase == "main":
            # per connection actually held: Linux's stack fails some
            out["held"] = rec["n"] - rec.get("failed", 0)
    for conc, rounds in main.items():
        out[f"c{conc}"] = main_line(rounds)
    phases = {x[0] for x in seq}
    if "idle-with" in phases:
        out["idle"] = idle_line(seq)
    if "idle-nokeepalive" in phases:
        out["idle_nokeepalive"] = idle_line(
            [x for x in seq if x[0] != "idle-with"], "idle-nokeepalive")
    if "listen-with" in phases:
        out["listeners"] = listener_line(seq)
    b, h = slab.get(f"{stack}-before"), slab.get(f"{stack}-held1000")
    held = out.get("held") or 1000
    if b is not None and h is not None:
        out["slab_per_conn"] = (h - b) / held
    caches = slab.get(f"{stack}-caches", {})
    out["slab_caches"] = {k: v / held for k, v in caches.items()}
    return out


def ratio(a, b):
    return a / b if a and b else None


def paired_ratio(summ, c, field, a, b):
    """The median over the main rounds of stack @a's @field over stack
    @b's at concurrency @c, over the rounds both ran. A round runs the
    stacks back to back, so a change of the host's speed between rounds
    cancels out of each round's ratio; it does not cancel out of the
    ratio of two medians. Falls back to that ratio when no round pairs
    up."""
    xa = (get(summ, a, f"c{c}", "by_round") or {}).get(field, {})
    xb = (get(summ, b, f"c{c}", "by_round") or {}).get(field, {})
    both = [k for k in xa if k in xb]
    if both:
        return median([ratio(xa[k], xb[k]) for k in both])
    return ratio(get(summ, a, f"c{c}", field), get(summ, b, f"c{c}", field))


def row(name, vals, fmt, ratios=(), target=""):
    cells = [fmt.format(v) if v is not None else "-" for v in vals]
    rcells = [f"{r:.2f}" if r is not None else "-" for r in ratios]
    rcells += [""] * (2 - len(rcells))
    print(f"{name:<34}" + "".join(f"{c:>11}" for c in cells) +
          "".join(f"{c:>11}" for c in rcells) + f"  {target}")


def cell(v, width, fmt="{:.2f}"):
    """@v formatted and right-aligned in @width columns; "-" if None."""
    return f"{fmt.format(v) if v is not None else '-':>{width}}"


def spread_row(name, pairs, fmt):
    """Min-max cells: how far the windows or rounds of a line spread."""
    cells = [f"{fmt.format(a)}-{fmt.format(b)}" if a is not None and
             b is not None else "-" for a, b in pairs]
    print(f"{name:<34}" + "".join(f"{c:>11}" for c in cells))


def get(summ, stack, key, field):
    return summ.get(stack, {}).get(key, {}).get(field)


def rel_rows(summ, key, names, check=None):
    """A scenario's ratios to its rounds without (MEASURES), with their
    spreads; a measure not taken has no row. @check judges kiwi's rate
    ratio."""
    for (f, _, _), name in zip(MEASURES, names):
        v = [get(summ, s, key, f) for s in STACKS]
        if not any(v):
            continue
        row(name, v, "{:.2f}", (), check(v[1]) if check and f == "rel"
            else "")
        spread_row("    rounds min-max", [
            (get(summ, s, key, f + "_min"), get(summ, s, key, f + "_max"))
            for s in STACKS], "{:.2f}")


def report(summ, machine):
    label = f"({machine})"
    if len(label) > 33:
        print(label)
        label = ""
    print(f"{label:<34}" +
          "".join(f"{s:>11}" for s in STACKS) +
          f"{'kiwi/tcp':>11}{'kiwi/linux':>11}  target")
    verdicts, ratios = [], {}

    def check(ok, what):
        if ok is not None:
            verdicts.append((ok, what))
        return "" if ok is None else ("met" if ok else "MISSED")

    for c in (1, 16, 256):
        v = [get(summ, s, f"c{c}", "rate") for s in STACKS]
        rt = paired_ratio(summ, c, "rate", "kiwi", "tcp")
        rl = paired_ratio(summ, c, "rate", "kiwi", "linux")
        ratios[f"rate_c{c}"] = {"kiwi/tcp": rt, "kiwi/linux": rl}
        ok = None if rt is None or rl is None else rt >= 0.8 and rl >= 2
        row(f"connections/s, concurrency {c}", v, "{:.0f}", (rt, rl),
            check(ok, f"rate c={c}") + " (>=0.8x tcp, >=2x linux)")
        spread_row("  rounds min-max", [
            (get(summ, s, f"c{c}", "rate_min"),
             get(summ, s, f"c{c}", "rate_max")) for s in STACKS], "{:.0f}")
    for c in (1, 16, 256):
        for p in ("p50_ms", "p99_ms"):
            v = [get(summ, s, f"c{c}", p) for s in STACKS]
            rt, rl = ratio(v[1], v[0]), ratio(v[1], v[2])
            if p == "p99_ms":
                rt = paired_ratio(summ, c, p, "kiwi", "tcp")
                rl = paired_ratio(summ, c, p, "kiwi", "linux")
                ratios[f"p99_c{c}"] = {"kiwi/tcp": rt, "kiwi/linux": rl}
            tgt = ""
            if p == "p99_ms":
                tgt = check(None if rl is None else rl <= 0.5,
                            f"p99 c={c}") + " (<=0.5x linux)"
            row(f"connect->ESTABLISHED {p[:3]} ms, c={c}", v, "{:.2f}",
                (rt, rl), tgt)
    for c in (1, 16, 256):
        v = [get(summ, s, f"c{c}", "cpu_ms") for s in STACKS]
        if any(v):
            row(f"host CPU ms per connection, c={c}", v, "{:.2f}",
                (ratio(v[1], v[0]), ratio(v[1], v[2])))
    for c in (1, 16, 256):
        v = [get(summ, s, f"c{c}", "insns_k") for s in STACKS]
        if any(v):
            rt = paired_ratio(summ, c, "insns_k", "kiwi", "tcp")
            rl = paired_ratio(summ, c, "insns_k", "kiwi", "linux")
            ratios[f"insns_c{c}"] = {"kiwi/tcp": rt, "kiwi/linux": rl}
            row(f"k guest instructions/conn, c={c}", v, "{:.0f}",
                (rt, rl))
    v = [get(summ, s, "c1", "close_ms") for s in STACKS]
    row("disconnect+destroy ms, c=1", v, "{:.2f}",
        (ratio(v[1], v[0]), ratio(v[1], v[2])))
    v = [summ[s].get("slab_per_conn") for s in STACKS]
    rl = ratio(v[1], v[2])
    row("slab bytes per live connection", v, "{:.0f}",
        (ratio(v[1], v[0]), rl),
        check(None if rl is None else rl <= 0.5, "slab") + " (<=0.5x linux)")
    for key, what in (("idle", "idle live connections"),
                      ("listeners", "extra listeners")):
        v = [get(summ, s, key, "rate") for s in STACKS]
        row(f"connections/s, c=16, with {what}", v, "{:.0f}",
            (ratio(v[1], v[0]), ratio(v[1], v[2])))
        row("  same, rounds without", [get(summ, s, key, "rate_none")
                                       for s in STACKS], "{:.0f}")
        rel_rows(summ, key, ("  same, relative to none",
                             "  host CPU, relative to none",
                             "  guest insns, relative to none"),
                 lambda r, w=what: check(
                     None if r is None else r >= 0.9,
                     f"rate with {w}") + " (kiwi >=0.90)")
        if key == "idle" and get(summ, "kiwi", "idle_nokeepalive", "rel"):
            rel_rows({"kiwi": summ["kiwi"]}, "idle_nokeepalive",
                     ("  kiwi without keepalive: rate",
                      "  kiwi without keepalive: host CPU",
                      "  kiwi without keepalive: insns"))
    drift = [f"{s} {get(summ, s, 'idle', 'rate_none_before'):.0f}/"
             f"{get(summ, s, 'idle', 'rate_none_after'):.0f}"
             for s in STACKS
             if get(summ, s, "idle", "rate_none_before") is not None and
             get(summ, s, "idle", "rate_none_after") is not None]
    if drift:
        print("rounds without idle connections, before/after the hold: " +
              ", ".join(drift))
    speed = []
    for s in STACKS:
        v = get(summ, s, "idle", "ns_per_insn")
        if v and None not in v:
            speed.append(f"{s} " + "/".join(f"{x:.1f}" for x in v))
    if speed:
        print("host CPU ns per guest instruction, before/with/after the "
              "hold: " + ", ".join(speed))
    missed = [w for ok, w in verdicts if not ok]
    print("ratios of the rates and of p99: the median of the main rounds' "
          "ratios (each round runs the stacks back to back)")
    print(f"targets: {len(verdicts) - len(missed)} met, {len(missed)} missed"
          + (": " + ", ".join(missed) if missed else ""))
    return ratios


STAGES = ("create+resolve_addr", "resolve_route", "CQ+QP", "connect->EST",
          "disconnect call", "->DISCONNECTED", "destroy QP+CQ", "destroy id")


def breakdown(summ):
    """Mean time of each step of a client connection, in ms."""
    print("\nbreakdown, mean ms per connection (client side; server: from "
          "the client's connect call)")
    cols = [(s, c) for c in (1, 16, 256) for s in ("kiwi", "linux")]
    print(f"{'':<34}" + "".join(f"{s + ' c=' + str(c):>13}"
                                 for s, c in cols))
    for i, name in enumerate(STAGES):
        v = [get(summ, s, f"c{c}", "stages_us") or [] for s, c in cols]
        print(f"{name:<34}" + "".join(
            cell(x[i] / 1e3 if len(x) > i else None, 13) for x in v))
    for f, name in (("srv_req_us", "server: connect->REQUEST"),
                    ("srv_accept_us", "server: accept call")):
        v = [get(summ, s, f"c{c}", f) for s, c in cols]
        print(f"{name:<34}" + "".join(
            cell(x / 1e3 if x is not None else None, 13) for x in v))


def floor_report(summ, ratios):
    """The floors against the baseline at c=16: the rate and the host CPU
    per connection, and the ratio of the rates round by round."""
    have = [f for f in FLOORS if get(summ, f, "c16", "rate")]
    if not have:
        return
    print("\nfloor, c=16: the TCP baseline plus a client's rdma_cm steps "
          "(create id, resolve\naddress and route, CQ+QP, destroy), "
          "no iWARP connection, no server side")
    counted = get(summ, "tcp", "c16", "insns_k") is not None
    print(f"{'':<34}{'conn/s':>11}{'host CPU ms':>13}{'of tcp':>11}"
          f"{'stack/floor':>13}" + (f"{'k insns':>11}" if counted else ""))
    for f in have:
        stack = f[:-len("-floor")]
        rt = paired_ratio(summ, 16, "rate", f, "tcp")
        rs = paired_ratio(summ, 16, "rate", stack, f)
        ratios[f"floor_c16_{stack}"] = {"floor/tcp": rt, "stack/floor": rs}
        name = f"tcp + {stack}'s client steps"
        print(f"{name:<34}" +
              cell(get(summ, f, "c16", "rate"), 11, "{:.0f}") +
              cell(get(summ, f, "c16", "cpu_ms"), 13) + cell(rt, 11) +
              cell(rs, 13) +
              (cell(get(summ, f, "c16", "insns_k"), 11, "{:.0f}")
               if counted else ""))


def slab_breakdown(summ):
    """The slab caches that grew most per held connection."""
    for s in ("kiwi", "linux"):
        caches = sorted(summ[s].get("slab_caches", {}).items(),
                        key=lambda kv: -kv[1])
        if caches:
            print(f"\nslab bytes per connection, {s}: " + ", ".join(
                f"{k} {v:.0f}" for k, v in caches[:10]))


def read_cpu(path):
    """scripts/bench_watch.py's "<line> <CPU ns> <wall ns>" lines: (CPU
    time, host monotonic time) by line number."""
    cpu = {}
    try:
        with open(path) as f:
            for ln in f:
                k, v, w = ln.split()[:3]
                cpu[int(k)] = (int(v), int(w))
    except (OSError, ValueError):
        pass
    return cpu


def read_insns(path):
    """scripts/bench_insns.c's "<host monotonic ns> <instructions>"
    lines, as two lists in time order; None without any."""
    times, counts = [], []
    try:
        with open(path) as f:
            for ln in f:
                t, n = ln.split()
                times.append(int(t))
                counts.append(int(n))
    except (OSError, ValueError):
        pass    # a last line cut short by the VM's end
    return (times, counts) if times else None


def insns_at(insns, when):
    """Guest instructions executed by host monotonic time @when: the last
    count written at or before it (one a millisecond; the VM sleeps
    around each timed command)."""
    times, counts = insns
    return counts[max(bisect.bisect_right(times, when) - 1, 0)]


def print_lines(results, cpu, insns):
    """The KIWI- lines of a script run but for progress and symbols, each
    rate result followed by a KIWI-PERCONN line: its host CPU and guest
    instructions per connection that opened."""
    with open(results, errors="replace") as f:
        lines = f.read().split("\n")
    start = None
    for lineno, line in enumerate(lines, 1):
        m = MARK.search(line.strip())
        if not m or m.group(1) in ("PROGRESS", "SYM"):
            continue
        print(line.strip())
        what, rest = m.groups()
        if what == "START":
            start = lineno
        elif what == "BENCH" and rest.startswith("{"):
            rec = json.loads(rest.rsplit(" rc=", 1)[0])
            measure(rec, cpu, insns, start, lineno)
            start = None
            if rec.get("cmd") != "rate":
                continue
            c, k = cpu_ms(rec), insns_k(rec)
            if c is not None:
                print(f"KIWI-PERCONN host_cpu_us={c * 1e3:.0f}" +
                      (f" insns_k={k:.1f}" if k is not None else ""))


def dp_value(rec, what):
    """A data-path result's MB/s, host CPU seconds per GB, or (ping) round
    trip in us; None if it failed or has no such value."""
    if rec.get("err") or rec.get("rc"):
        return None
    if what == "mbps":
        return rec["bytes"] / rec["ns"] * 1e3 if rec.get("ns") else None
    if what == "cpu":
        gb = rec.get("bytes", 0) / 1e9
        return rec["cpu_ns"] / 1e9 / gb if gb and "cpu_ns" in rec else None
    return rec.get(what, 0) / 1e3 or None


def datapath_rows(runs):
    """The data-path scenario's rows: one per operation, size and measure,
    with a value per stack; "OP xN" for N connections at once, "OP@MTU"
    after a stack's "datapath-mtuMTU" phase. Transfers after a stack's
    "datapath-crc"
    phase ran with MPA CRC on: their rows are "OP+crc", set against the
    baseline's row of the same operation and size."""
    recs = {}
    for stack in STACKS:
        tag = ""
        for rec in runs.get(stack, []):
            if rec.get("cmd") == "phase":
                name = rec.get("name", "")
                tag = ("+crc" if name == "datapath-crc" else
                       "@" + name[len("datapath-mtu"):]
                       if name.startswith("datapath-mtu") else "")
            elif rec.get("cmd") in DP_OPS + ("ping",):
                conns = rec.get("conns", 1)
                op = (rec["cmd"] + (f" x{conns}" if conns > 1 else "") +
                      tag)
                recs[(op, rec["size"], stack)] = rec

    def order(key):
        op, size = key
        base = re.split(r"[ +@]", op)[0]
        conns = int(re.search(r" x(\d+)", op).group(1)) if " x" in op else 1
        mtu = int(op.split("@")[1]) if "@" in op else 0
        return ((DP_OPS + ("ping",)).index(base), conns, mtu, "+crc" in op,
                size)
    rows = []
    keys = sorted({(op, size) for op, size, _ in recs}, key=order)
    for op, size in keys:
        measures = ([("p50_ns", "us p50"), ("p99_ns", "us p99")]
                    if op == "ping" else
                    [("mbps", "MB/s"), ("cpu", "host CPU s/GB")])
        for what, unit in measures:
            row = {"test": op, "size": size, "unit": unit}
            for stack in STACKS:
                rec = recs.get((op, size, stack))
                if rec is None and stack == "tcp" and "+crc" in op:
                    rec = recs.get((op.split("+")[0], size, stack))
                row[stack] = dp_value(rec, what) if rec else None
            rows.append(row)
    return rows


def dp_ratio(a, b):
    return f"{a / b:.2f}" if a and b else "-"


def datapath_report(rows):
    """Print the data-path rows with kiwi's ratios to raw TCP and to
    Linux's siw."""
    if not rows:
        return
    print()
    print("data path (each transfer on connections of its own):")
    print(f"  {'test':<10} {'size':>8} {'unit':<14} {'tcp':>9} {'kiwi':>9} "
          f"{'linux':>9} {'kiwi/tcp':>9} {'kiwi/linux':>10}")
    for r in rows:
        vals = [r[s] for s in STACKS]
        cells = " ".join(f"{v:>9.2f}" if v is not None else f"{'-':>9}"
                         for v in vals)
        print(f"  {r['test']:<10} {r['size']:>8} {r['unit']:<14} {cells} "
              f"{dp_ratio(r['kiwi'], r['tcp']):>9} "
              f"{dp_ratio(r['kiwi'], r['linux']):>10}")


def main():
    if sys.argv[1] == "--lines":
        print_lines(sys.argv[2], read_cpu(sys.argv[3]),
                    read_insns(sys.argv[4]) if len(sys.argv) > 4 else None)
        return 0
    results, console, out = sys.argv[1:4]
    cpu = read_cpu(sys.argv[4]) if len(sys.argv) > 4 else {}
    machine = sys.argv[5] if len(sys.argv) > 5 else "QEMU TCG, 2 vCPUs"
    insns = read_insns(sys.argv[6]) if len(sys.argv) > 6 else None
    with open(results, errors="replace") as f:
        # split as bench_watch.py counts lines
        runs, slab, problems, notes = parse(f.read().split("\n"), cpu,
                                            insns)
    with open(console, errors="replace") as f:
        splats = [ln.strip() for ln in f if SPLAT.search(ln)]
    problems += [f"kernel: {s}" for s in splats[:5]]
    summ = {s: summarize(runs[s], slab, s) for s in STACKS + FLOORS}
    ratios = {}
    if any(rec.get("cmd") == "rate" for rec in runs["kiwi"]):
        ratios = report(summ, machine)
        floor_report(summ, ratios)
        breakdown(summ)
        slab_breakdown(summ)
    datapath = datapath_rows(runs)
    datapath_report(datapath)
    with open(out, "w") as f:
        json.dump({"machine": machine + ", benchmark kernel",
                   "summary": summ, "ratios": ratios, "runs": runs,
                   "slab": slab, "datapath": datapath,
                   "problems": problems, "notes": notes}, f, indent=1)
    print(f"saved: {out}")
    for n in notes:
        print(f"note: {n}")
    for p in problems:
        print(f"problem: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
