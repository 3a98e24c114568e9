#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Boot kiwi's test VM, watch it, and judge what it printed.

The VM's /init (tests/vm/init) writes phase markers and each suite's KTAP to
a second serial port (results.log) and the markers also to the kernel log,
so the console (console.log) can be split into per-test-module windows.

The run fails on: a failed or missing KUnit case, a suite that never
reported, a module that would not load or unload, a phase that overran its
timeout, and any kernel splat on the console that the test module running at
the time did not declare in tests/expected-splats. A declared splat that
does not appear fails the run too: the test that provokes it has stopped
provoking it.
"""

import argparse
import os
import re
import select
import subprocess
import sys
import time

MARK = re.compile(r"KIWI-([A-Z-]+)(?: (.*))?$")

# Lines that open a kernel splat. (kmemleak's own console line is left to
# the report /init copies from debugfs, which names what leaked.) A block opened by one of these runs until
# its end line (or the next opener, or a test-module boundary); a Call Trace
# outside any block is a splat of its own.
SPLAT_OPEN = re.compile(
    r"(WARNING:|BUG:|kernel BUG at|Oops|general protection fault|"
    r"Kernel panic|INFO: |UBSAN:|ODEBUG:|refcount_t:|list_add corruption|"
    r"list_del corruption|DEBUG_LOCKS_WARN_ON|"
    r"stack-protector|double fault|Unable to handle)")
SPLAT_CLOSE = re.compile(r"(---\[ end |^=+$)")
# WARN(cond, fmt, ...) prints this line, then its message, then the
# "WARNING: CPU: ... at FUNC" opener: a declared splat is matched against
# the message and the opener together.
CUT_HERE = re.compile(r"-+\[ cut here \]-+")
CALL_TRACE = re.compile(r"Call Trace:")
# kiwi's own reports of objects left behind (a device unregistered, a
# module unloaded with ids, QPs or endpoints alive): one line each, judged
# as splats are; a test that makes one on purpose declares it.
KIWI_LEAK = re.compile(r"kiwi_(iwcm|rdmacm|softiw): .*\bleaked\b")
# kmemleak stops for good on an internal error (its pool full, say).
KMEMLEAK_OFF = re.compile(r"kmemleak: Kernel memory leak detector disabled")
# A tolerated splat of code that is not kiwi's must not involve kiwi: a
# report whose own backtrace (the context that raised it) runs through
# kiwi's modules is never tolerated. Frames of the test module driving
# Linux's stack are not kiwi's code; the lock-usage traces a lockdep
# report adds are history, not the context, and are not looked at.
KIWI_FRAME = re.compile(r"\[(kiwi_iwcm|kiwi_rdmacm|kiwi_softiw)\]")
# printk prefixes: "[    1.234567] " timestamps, optionally a "[ Tnn]" caller.
PRINTK_PREFIX = re.compile(r"^\[\s*\d+\.\d+\]\s*(\[\s*[TC]\d+\]\s*)?")


def log(msg):
    print(msg, flush=True)


class Phase:
    """The watchdog's view: what the VM is doing and until when."""

    def __init__(self, name, limit):
        self.name = name
        self.deadline = time.monotonic() + limit


def run_vm(args, out_dir):
    console = os.path.join(out_dir, "console.log")
    results = os.path.join(out_dir, "results.log")
    for f in (console, results):
        open(f, "w").close()
    cmd = [
        args.qemu, "-accel", "tcg", "-smp", str(args.cpus),
        "-m", str(args.memory),
        "-nic", "none", "-no-reboot", "-display", "none", "-monitor", "none",
        "-kernel", args.kernel, "-initrd", args.initrd,
        "-append", "console=ttyS0 loglevel=7 panic=-1 kmemleak=on "
                   "hung_task_panic=0 " + args.append,
        "-chardev", "file,id=con,path=" + console,
        "-serial", "chardev:con",
        "-chardev", "file,id=res,path=" + results,
        "-serial", "chardev:res",
    ]
    with open(os.path.join(out_dir, "qemu.cmd"), "w") as f:
        f.write(" ".join(cmd) + "\n")
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    timeouts = []
    phase = Phase("boot", args.boot_timeout)
    seen = 0
    pending = ""
    started = time.monotonic()
    while True:
        ready, _, _ = select.select([proc.stdout], [], [], 0.5)
        if ready:
            data = os.read(proc.stdout.fileno(), 4096)
            if data:
                sys.stdout.write("qemu: " + data.decode(errors="replace"))
        with open(results, "rb") as f:
            f.seek(seen)
            chunk = f.read()
        seen += len(chunk)
        pending += chunk.decode(errors="replace")
        *lines, pending = pending.split("\n")
        for line in lines:
            m = MARK.search(line.strip())
            if not m:
                continue
            what, rest = m.group(1), m.group(2) or ""
            if what == "BOOT":
                log(f"vm: booted {rest} in {time.monotonic() - started:.0f} s")
                phase = Phase("loading kiwi modules", args.suite_timeout)
            elif what == "BEGIN":
                log(f"vm: running {rest}")
                phase = Phase("test module " + rest, args.suite_timeout)
            elif what == "UNLOAD-BEGIN":
                phase = Phase("unload and kmemleak scan", args.suite_timeout)
            elif what == "DONE":
                phase = Phase("power off", 60)
        if proc.poll() is not None:
            break
        if time.monotonic() > phase.deadline:
            timeouts.append(phase.name)
            log(f"vm: timeout in {phase.name}; killing QEMU")
            proc.kill()
            proc.wait()
            break
    log(f"vm: finished in {time.monotonic() - started:.0f} s")
    return timeouts


def read_lines(path):
    with open(path, errors="replace") as f:
        return [line.rstrip("\r\n").replace("\r", "") for line in f]


def suite_label(test, suite):
    """A suite's name in problem lines; a run MODULE@RUN adds the run."""
    return f"{suite} ({test.split('@', 1)[1]})" if "@" in test else suite


def parse_results(lines):
    """Split results.log into markers and per-suite KTAP blocks."""
    state = {"boot": None, "loads": {}, "tests": [], "suites": {},
             "ends": {}, "unloads": {}, "kmemleak": [], "text": {},
             "net": None, "done": False, "kmemleak_scanned": None,
             "setup_failed": []}
    suite = None
    in_leak = False
    for raw in lines:
        m = MARK.search(raw.strip())
        if m:
            what, rest = m.group(1), m.group(2) or ""
            if what == "BOOT":
                state["boot"] = rest
            elif what == "LOAD":
                name, rc = rest.split(" rc=")
                state["loads"][name] = int(rc)
            elif what == "NET":
                state["net"] = rest
            elif what == "BEGIN":
                state["tests"].append(rest)
            elif what == "SUITE":
                mod, name = rest.split(" ", 1)
                suite = (mod, name)
                state["suites"][suite] = []
            elif what == "SUITE-END":
                suite = None
            elif what == "END":
                name, rc = rest.split(" rc=")
                state["ends"][name] = int(rc)
            elif what in ("UNLOAD", "TEARDOWN"):
                name, rc = rest.split(" rc=")
                state["unloads"][name] = int(rc)
            elif what == "SETUP":
                state["setup_failed"].append(rest.split()[0])
            elif what == "TEXT":
                parts = rest.split()
                if len(parts) == 2:
                    state["text"][parts[0]] = int(parts[1], 16)
            elif what == "KMEMLEAK-SCANNED":
                state["kmemleak_scanned"] = rest
            elif what == "KMEMLEAK-BEGIN":
                in_leak = True
            elif what == "KMEMLEAK-END":
                in_leak = False
            elif what == "DONE":
                state["done"] = True
            continue
        if suite:
            state["suites"][suite].append(raw)
        elif in_leak and raw.strip():
            state["kmemleak"].append(raw)
    return state


CASE = re.compile(r"^(ok|not ok) (\d+)(?: -)? ([^#]*?)\s*(#\s*(SKIP).*)?$")
PLAN = re.compile(r"^1\.\.(\d+)$")
PARAMS = re.compile(r"^# \w+: pass:\d+ fail:\d+ skip:\d+ total:(\d+)$")


def parse_ktap(lines):
    """Return (cases, complete, planned) for one suite's debugfs results.

    cases: list of (number, name, status, params) with status
    pass/fail/skip, taken from the lines one level in (four spaces);
    parameterised cases report their own verdict at that level, after a
    line with their parameters' totals (params; 0 for a plain case). The
    debugfs file of 6.1 keeps only the last parameter's own line.
    complete: the suite's own result line was present.
    """
    planned = None
    cases = {}
    complete = False
    params = 0
    for line in lines:
        indent = len(line) - len(line.lstrip(" "))
        text = line.strip()
        if indent == 4 and PARAMS.match(text):
            params = int(PARAMS.match(text).group(1))
        elif indent == 4:
            m = PLAN.match(text)
            if m:
                planned = int(m.group(1))
                continue
            m = CASE.match(text)
            if m:
                status = "fail" if m.group(1) == "not ok" else (
                    "skip" if m.group(5) else "pass")
                cases[int(m.group(2))] = (m.group(3), status, params)
                params = 0
        elif indent == 0 and CASE.match(text):
            complete = True
    out = []
    for n in range(1, (planned or 0) + 1):
        name, status, k = cases.get(n, (f"case {n}", "missing", 0))
        out.append((n, name, status, k))
    return out, complete, planned


def check_manifest(manifest, state, tests):
    """Problems: suites, cases or parameters of @manifest not reported.

    Only the test modules that ran (@tests) are held to it; a module that
    never ran is reported elsewhere.
    """
    problems = []
    got = {}
    for (mod, suite), lines in state["suites"].items():
        for _, name, _, params in parse_ktap(lines)[0]:
            got[(mod, suite, name)] = params
    suites = {(mod, suite) for mod, suite in state["suites"]}
    for (mod, suite, case), want in sorted(manifest.items()):
        if mod not in tests or mod not in state["tests"]:
            continue
        if (mod, suite) not in suites:
            problems.append(f"manifest: suite {suite} never reported")
            continue
        if (mod, suite, case) not in got:
            problems.append(f"manifest: {suite} {case}: no result")
        elif got[(mod, suite, case)] < want:
            problems.append(f"manifest: {suite} {case}: "
                            f"{got[(mod, suite, case)]} parameters, "
                            f"{want} listed")
    return problems


def text_symbols(ko):
    """(offset, name) of the functions in a module's .text, sorted."""
    try:
        sections = subprocess.run(["readelf", "-SW", ko], check=True,
                                  capture_output=True, text=True).stdout
        symbols = subprocess.run(["readelf", "-sW", ko], check=True,
                                 capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return []
    m = re.search(r"\[\s*(\d+)\] \.text\s", sections)
    if not m:
        return []
    ndx = m.group(1)
    out = []
    for line in symbols.splitlines():
        f = line.split()
        if len(f) == 8 and f[3] == "FUNC" and f[6] == ndx:
            out.append((int(f[1], 16), f[7]))
    return sorted(out)


def symbolize(frame, text, kos):
    """Name a bare address in a module that has been unloaded since."""
    m = re.match(r"0x([0-9a-f]+)$", frame)
    if not m:
        return frame
    addr = int(m.group(1), 16)
    base, mod = max(((b, n) for n, b in text.items() if b <= addr),
                    default=(None, None))
    if mod is None or mod not in kos:
        return frame
    off = addr - base
    name = next((f"{s}+{off - o:#x}" for o, s in
                 reversed(text_symbols(kos[mod])) if o <= off), f"{off:#x}")
    return f"{name} [{mod}]"


BOOT_COMM = re.compile(r'comm "swapper/\d+", pid [01],')


def split_boot_leaks(lines):
    """Drop kmemleak reports of objects allocated before /init ran.

    Those were allocated by the boot CPU's idle task (pid 0) or by pid 1
    before it ran /init (its comm is still swapper/0 then): no kiwi or test
    module existed yet. Returns (the other reports' lines, how many went).
    """
    blocks = []
    for ln in lines:
        if ln.startswith("unreferenced object") or not blocks:
            blocks.append([])
        blocks[-1].append(ln)
    kept = [b for b in blocks if not (len(b) > 1 and BOOT_COMM.search(b[1]))]
    return [ln for b in kept for ln in b], len(blocks) - len(kept)


def load_expected(path):
    """Return (required, tolerated) from an expected-splats file.

    "MODULE SUITE COUNT REGEX": a splat the suite provokes on purpose,
    exactly COUNT times, matched on the splat's first line; required is a
    list of (module, suite, count, regex). "may MODULE REGEX": a splat of
    code that is not kiwi's (Linux's siw in the interop suite) that may
    appear while the module runs, matched anywhere in the splat's block;
    tolerated is a list of (module, regex).
    """
    required, tolerated = [], []
    if not path or not os.path.exists(path):
        return required, tolerated
    for line in read_lines(path):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        module, regex = line.split(None, 1)
        if module == "may":
            module, regex = regex.split(None, 1)
            tolerated.append((module, re.compile(regex)))
        else:
            suite, count, regex = regex.split(None, 2)
            required.append((module, suite, int(count), re.compile(regex)))
    return required, tolerated


SUBTEST = re.compile(r"# Subtest: (\S+)$")


def final_trace(body):
    """A splat's own backtrace: its last "Call Trace:" before the first
    "</TASK>", through that line (the whole block if there is none)."""
    end = next((i for i, ln in enumerate(body) if "</TASK>" in ln), None)
    if end is None:
        return body
    start = max((i for i in range(end) if CALL_TRACE.search(body[i])),
                default=0)
    return body[start:end + 1]


def scan_console(lines, expected, ran, suites=()):
    """Return the problems found in the console log.

    @suites: the names of the suites that reported; KUnit's "# Subtest:"
    line of one of them on the console says which suite runs from there
    on (within the test module's window).
    """
    required, tolerated = expected
    problems = []
    window = "boot"
    suite = None
    block = None          # [window, opener, allowed, lines] of a splat
    message = None        # lines since a "cut here", before the opener
    hits = {i: 0 for i in range(len(required))}

    def close_block():
        win, opener, allowed, body = block
        text = "\n".join(body)
        kiwi = KIWI_FRAME.search("\n".join(final_trace(body)))
        if not allowed and (kiwi or
                            not any(mod == win and regex.search(text)
                                    for mod, regex in tolerated)):
            problems.append(f"splat during {win}: {opener.strip()}")

    for raw in lines:
        line = PRINTK_PREFIX.sub("", raw)
        if KMEMLEAK_OFF.search(line):
            problems.append("kmemleak turned itself off (see console.log): "
                            "leaks were not looked for")
        m = MARK.search(line.strip())
        if m:
            what, rest = m.group(1), m.group(2) or ""
            if block:
                close_block()
                block = None
            message = None
            if what == "BEGIN":
                window = rest
            elif what in ("UNLOAD-BEGIN", "KMEMLEAK-BEGIN"):
                window = what.lower()
            suite = None
            continue
        m = SUBTEST.search(line)
        if m and m.group(1) in suites:
            suite = m.group(1)
        if KIWI_LEAK.search(line) and not block:
            declared = next((i for i, (mod, sname, _, regex)
                             in enumerate(required)
                             if mod == window and sname == suite and
                             regex.search(line)), None)
            if declared is None:
                problems.append(f"leak reported during {window}: "
                                f"{line.strip()}")
            else:
                hits[declared] += 1
            continue
        if CUT_HERE.search(line) and not block:
            message = []
            continue
        if SPLAT_OPEN.search(line):
            if block:
                close_block()
            said = "\n".join((message or []) + [line])
            message = None
            allowed = None
            for i, (mod, sname, _, regex) in enumerate(required):
                if mod == window and sname == suite and regex.search(said):
                    allowed = i
                    break
            if allowed is not None:
                hits[allowed] += 1
            block = [window, line, allowed is not None, [line]]
            continue
        if (message is not None and len(message) < 8 and
                not CALL_TRACE.search(line)):
            message.append(line)
            continue
        message = None
        if block:
            block[3].append(line)
            if SPLAT_CLOSE.search(line) or len(block[3]) > 2000:
                close_block()
                block = None
            continue
        if CALL_TRACE.search(line):
            problems.append(f"splat during {window}: Call Trace with no "
                            "header (see console.log)")
    if block:
        close_block()
    for i, (mod, sname, count, regex) in enumerate(required):
        if mod in ran and hits[i] != count:
            problems.append(f"expected splat during {mod} {sname}: "
                            f"/{regex.pattern}/ seen {hits[i]} time(s), "
                            f"{count} expected")
    return problems


TIMESTAMP = re.compile(r"^\[\s*\d+\.\d+\] ?")


def console_verdicts(lines, suites):
    """{(test, suite, number): (name, status)} of the suite-level case
    lines KUnit printed on the console, within each test's window.

    KUnit 6.1 keeps 512 bytes of a case's log for debugfs: a case with
    many failed expectations (or the case after it) can lose its verdict
    line there, while the console has it. judge() reads a verdict from
    here only for a case debugfs has no result for.
    """
    out = {}
    window = suite = None
    for raw in lines:
        # the timestamp and its one space only: the indent tells levels
        line = TIMESTAMP.sub("", raw.rstrip("\n"))
        m = MARK.search(line.strip())
        if m:
            if m.group(1) == "BEGIN":
                window = m.group(2)
            elif m.group(1) == "END":
                window = None
            suite = None
            continue
        m = SUBTEST.search(line)
        if m and line.startswith("    #"):	# a suite's, not a parameter's
            suite = m.group(1) if m.group(1) in suites else None
            continue
        if not window or not suite or not line.startswith("    ") or \
                line.startswith("     "):
            continue
        m = CASE.match(line.strip())
        if m:
            status = "fail" if m.group(1) == "not ok" else (
                "skip" if m.group(5) else "pass")
            out[(window, suite, int(m.group(2)))] = (m.group(3), status)
    return out


def step_problems(st, names):
    """Problems of the steps @names of a demo-style VM: a step that never
    ran, or ended non-zero (with what it said). @st holds "ends" (step:
    rc) and "says" (step: lines), as demo_vm.py and dkms_vm.py parse
    them."""
    problems = []
    for name in names:
        rc = st["ends"].get(name)
        said = " / ".join(st["says"].get(name, []))
        if rc is None:
            problems.append(f"{name}: never ran")
        elif rc:
            problems.append(f"{name}: failed (rc={rc})"
                            + (f": {said}" if said else ""))
    return problems


def load_manifest(path):
    """{(module, suite, case): params} of tests/manifest."""
    import kiwi_manifest
    return kiwi_manifest.load(path)


def judge(args, out_dir, timeouts):
    state = parse_results(read_lines(os.path.join(out_dir, "results.log")))
    console = read_lines(os.path.join(out_dir, "console.log"))
    tests = args.tests.split()
    problems = [f"timeout: {t} did not finish within its limit"
                for t in timeouts]
    if state["boot"] is None:
        problems.append("the VM never reached /init (see console.log)")
    if state["net"] not in (None, "ok"):
        problems.append(f"test network setup failed: {state['net']}")
    for name, rc in state["loads"].items():
        if rc:
            problems.append(f"insmod {name} failed (rc={rc})")
    for name, rc in state["unloads"].items():
        if rc:
            problems.append(f"rmmod {name} failed (rc={rc})")
    for name in state["setup_failed"]:
        problems.append(f"{name}: its run's setup failed")

    rows = []
    passed = failed = skipped = 0
    verdicts = console_verdicts(console,
                                {name for _, name in state["suites"]})
    for t in tests:
        suites = [s for s in state["suites"] if s[0] == t]
        if t not in state["tests"]:
            if not timeouts and state["boot"] is not None:
                problems.append(f"{t}: never ran")
            continue
        if t in state["ends"] and state["ends"][t]:
            problems.append(f"insmod {t} failed (rc={state['ends'][t]})")
        if not suites and t in state["ends"] and not state["ends"][t]:
            problems.append(f"{t}: loaded but no suite reported")
        for key in suites:
            cases, complete, planned = parse_ktap(state["suites"][key])
            counts = {"pass": 0, "fail": 0, "skip": 0, "missing": 0}
            for n, name, status, _ in cases:
                if status == "missing" and (t, key[1], n) in verdicts:
                    name, status = verdicts[(t, key[1], n)]
                counts[status] += 1
                if status in ("fail", "missing"):
                    what = "failed" if status == "fail" else "no result"
                    problems.append(f"{suite_label(t, key[1])}: case {n} "
                                    f"{name}: {what}")
            if planned is None or not complete:
                problems.append(f"{suite_label(t, key[1])}: suite never "
                                "reported a result")
                counts["fail"] += 1
            rows.append((t, key[1], counts))
            passed += counts["pass"]
            failed += counts["fail"] + counts["missing"]
            skipped += counts["skip"]

    if args.manifest:
        problems += check_manifest(load_manifest(args.manifest), state,
                                   tests)

    # Races are only tested if the guest really has the CPUs QEMU was given.
    cpus = next((int(m.group(1)) for m in
                 (re.search(r"smp: Brought up \d+ nodes?, (\d+) CPUs?", ln)
                  for ln in console) if m), None)
    if cpus is not None and cpus != args.cpus:
        problems.append(f"the guest brought up {cpus} CPU(s), not "
                        f"{args.cpus}: races would not run in parallel")
    problems += scan_console(console, load_expected(args.expected),
                             state["tests"],
                             {name for _, name in state["suites"]})
    state["kmemleak"], boot_leaks = split_boot_leaks(state["kmemleak"])
    if boot_leaks:
        log(f"vm: kmemleak: {boot_leaks} object(s) allocated before /init "
            "ran set aside (the kernel's own boot, e.g. ACPI's caches)")
    if state["kmemleak"]:
        leak_lines = [ln.strip() for ln in state["kmemleak"]]
        objs = sum(1 for ln in leak_lines if ln.startswith("unreferenced"))
        # Name the first frame in a module ("fn+0x1/0x2 [mod]"): the
        # allocator's own frames come before it and say little.
        kos = {}
        for d in args.ko_dirs or []:
            for root, _, files in os.walk(d):
                kos.update({f[:-3]: os.path.join(root, f)
                            for f in files if f.endswith(".ko")})
        frames = [symbolize(ln.split("] ", 1)[-1], state["text"], kos)
                  for ln in leak_lines if "[<" in ln]
        first = next((f for f in frames if f.endswith("]")),
                     frames[0] if frames else "")
        problems.append(f"kmemleak: {objs} unreferenced object(s); first "
                        f"allocation site: {first or '?'}")
        # Name the module frames, as they read before the modules left.
        state["kmemleak"] = [
            re.sub(r"\] (0x[0-9a-f]+)$",
                   lambda m: "] " + symbolize(m.group(1), state["text"], kos),
                   ln) for ln in state["kmemleak"]]
        with open(os.path.join(out_dir, "kmemleak.txt"), "w") as f:
            f.write("\n".join(state["kmemleak"]) + "\n")
    elif state["boot"] is not None and not state["done"] and not timeouts:
        problems.append("the VM stopped before finishing (see console.log)")
    if state["done"] and state["kmemleak_scanned"] != "ok":
        problems.append("kmemleak did not scan (KMEMLEAK-SCANNED "
                        f"{state['kmemleak_scanned'] or 'missing'}): "
                        "leaks were not looked for")

    log("")
    log(f"{'test module':<24} {'suite':<28} {'pass':>5} {'fail':>5} "
        f"{'skip':>5}")
    for t, s, c in rows:
        log(f"{t:<24} {s:<28} {c['pass']:>5} "
            f"{c['fail'] + c['missing']:>5} {c['skip']:>5}")
    if problems:
        log("")
        log("problems:")
        for p in problems:
            log("  " + p)
        # Harness problems (splats, timeouts, modules that would not load)
        # are failures even when every case passed.
        failed += len([p for p in problems if ": case " not in p
                       and "suite never reported" not in p])
    log(f"logs: {out_dir}/console.log, {out_dir}/results.log")
    tail = f", {skipped} skipped" if skipped else ""
    if args.summary:
        # One of several VMs: the caller prints the total line.
        with open(args.summary, "w") as f:
            f.write(f"{passed} {failed} {skipped}\n")
            f.writelines(p + "\n" for p in problems)
        log(f"this VM: {passed} passed, {failed} failed{tail}")
    else:
        log(f"{passed} passed, {failed} failed{tail}")
    return 1 if failed or problems else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--kernel", required=True)
    p.add_argument("--initrd", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--tests", required=True,
                   help="test modules, space-separated, in run order")
    p.add_argument("--expected", help="expected-splats file")
    p.add_argument("--manifest", help="the suites and cases each test "
                   "module must report (tests/manifest)")
    p.add_argument("--ko-dirs", nargs="*",
                   help="where the loaded .ko files were built (to name "
                   "functions in reports about unloaded modules)")
    p.add_argument("--qemu", default="qemu-system-x86_64")
    p.add_argument("--memory", type=int, default=1024)
    p.add_argument("--cpus", type=int, default=2)
    p.add_argument("--append", default="")
    p.add_argument("--boot-timeout", type=int, default=180)
    p.add_argument("--suite-timeout", type=int, default=300)
    p.add_argument("--summary",
                   help="write 'passed failed skipped' here and leave the "
                   "total line to the caller")
    p.add_argument("--judge-only", action="store_true",
                   help="re-judge the logs of an earlier run")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    timeouts = [] if args.judge_only else run_vm(args, args.out)
    sys.exit(judge(args, args.out, timeouts))


if __name__ == "__main__":
    main()
