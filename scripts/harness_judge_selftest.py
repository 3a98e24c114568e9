#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Self-test of the VM harness's console judge (scripts/kiwi_vm.py).

Made-up consoles with known answers: a declared splat is held to its suite
and its exact count, and matched by a WARN's message as well as its
opener, as is a leak report of kiwi's; kmemleak turning
itself off fails every VM; a tolerated report of Linux's siw stays
tolerated when kiwi's test module only drives Linux's stack, and is not
when the report's own backtrace runs through kiwi's modules; a case
verdict debugfs lost is read from the console. Runs in make check's static
stage; make harness-selftest proves the same rules on real VMs.
"""

import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kiwi_vm  # noqa: E402


def ts(lines):
    """Give each line a printk timestamp, as the console has."""
    return [f"[   12.{i:06d}] {ln}" for i, ln in enumerate(lines)]


def warn_console(suite, n, message="harness: warned on purpose"):
    """A test module window in which @suite raises @n WARNs."""
    out = ["KIWI-BEGIN kiwi_harness_warn", "    # Subtest: " + suite]
    for i in range(n):
        out += ["------------[ cut here ]------------", message,
                f"WARNING: CPU: 0 PID: 9 at x.c:1 harness_warn+0x1/0x2 "
                "[kiwi_harness_warn]",
                "---[ end trace 0000000000000000 ]---"]
    out += ["    ok 1 harness_warn", "KIWI-END kiwi_harness_warn rc=0"]
    return ts(out)


LOCKDEP = [
    "KIWI-BEGIN kiwi_interop_test",
    "    # Subtest: kiwi_interop_siw",
    "WARNING: SOFTIRQ-safe -> SOFTIRQ-unsafe lock order detected",
    "the dependencies between SOFTIRQ-irq-safe lock and the holding lock:",
    "  siw_qp_llp_data_ready+0x1/0x2 [siw]",
    "  softiw_data_ready+0x1/0x2 [kiwi_softiw]",
    "stack backtrace:",
    "Call Trace:",
    " <TASK>",
    " siw_cm_work_handler+0x1/0x2 [siw]",
    "FRAME",
    " </TASK>",
    "    ok 1 ipt_ready",
    "KIWI-END kiwi_interop_test rc=0",
]
MAY = (re.compile(r"(?s)SOFTIRQ-unsafe lock order.*\[siw\]"),)


class Judge(unittest.TestCase):
    def scan(self, console, required=(), suites=("kiwi_harness_warn",),
             module="kiwi_harness_warn"):
        tolerated = [("kiwi_interop_test", r) for r in MAY]
        req = [(module, s, n, re.compile(rx)) for s, n, rx in required]
        return kiwi_vm.scan_console(console, (req, tolerated),
                                    [module], set(suites))

    def test_exact_count_passes(self):
        got = self.scan(warn_console("kiwi_harness_warn", 2),
                        [("kiwi_harness_warn", 2, "harness_warn")])
        self.assertEqual(got, [])

    def test_one_more_than_declared(self):
        got = self.scan(warn_console("kiwi_harness_warn", 2),
                        [("kiwi_harness_warn", 1, "harness_warn")])
        self.assertEqual(len(got), 1)
        self.assertIn("seen 2 time(s), 1 expected", got[0])

    def test_declared_by_message(self):
        got = self.scan(warn_console("kiwi_harness_warn", 2),
                        [("kiwi_harness_warn", 2, "warned on purpose")])
        self.assertEqual(got, [])

    def test_other_message_is_not_covered(self):
        got = self.scan(warn_console("kiwi_harness_warn", 1,
                                     "harness: something else"),
                        [("kiwi_harness_warn", 1, "warned on purpose")])
        self.assertTrue(any(p.startswith("splat during") for p in got))
        self.assertTrue(any("seen 0 time(s)" in p for p in got))

    def test_call_trace_after_cut_here_is_a_splat(self):
        console = ts(["KIWI-BEGIN kiwi_harness_warn",
                      "------------[ cut here ]------------",
                      "Call Trace:", " <TASK>", " </TASK>",
                      "KIWI-END kiwi_harness_warn rc=0"])
        got = self.scan(console)
        self.assertEqual(len(got), 1)
        self.assertIn("Call Trace with no header", got[0])

    def test_declared_but_not_raised(self):
        got = self.scan(warn_console("kiwi_harness_warn", 0),
                        [("kiwi_harness_warn", 1, "harness_warn")])
        self.assertEqual(len(got), 1)
        self.assertIn("seen 0 time(s), 1 expected", got[0])

    def test_other_suite_is_not_covered(self):
        got = self.scan(warn_console("kiwi_harness_warn", 1),
                        [("kiwi_harness_other", 1, "harness_warn")],
                        suites=("kiwi_harness_warn", "kiwi_harness_other"))
        self.assertTrue(any(p.startswith("splat during") for p in got))
        self.assertTrue(any("seen 0 time(s)" in p for p in got))

    def test_undeclared_splat_fails(self):
        got = self.scan(warn_console("kiwi_harness_warn", 1))
        self.assertEqual(len(got), 1)
        self.assertIn("splat during kiwi_harness_warn: WARNING:", got[0])

    def lockdep(self, frame):
        lines = [frame if ln == "FRAME" else ln for ln in LOCKDEP]
        return self.scan(ts(lines), suites=("kiwi_interop_siw",),
                         module="kiwi_interop_test")

    def test_siw_report_driven_by_the_test_is_tolerated(self):
        # softiw in the lock history, the test module in the backtrace
        got = self.lockdep(" ipt_connect+0x1/0x2 [kiwi_interop_test]")
        self.assertEqual(got, [])

    def test_siw_report_through_kiwi_is_not(self):
        got = self.lockdep(" softiw_cep_work+0x1/0x2 [kiwi_softiw]")
        self.assertEqual(len(got), 1)
        self.assertIn("SOFTIRQ-unsafe lock order", got[0])

    LEAK = ["KIWI-BEGIN kiwi_harness_warn",
            "    # Subtest: kiwi_harness_warn",
            "kiwi_iwcm: mock1: leaked qp 2 (x) not destroyed",
            "    ok 1 harness_warn", "KIWI-END kiwi_harness_warn rc=0"]

    def test_undeclared_leak_report_fails(self):
        got = self.scan(ts(self.LEAK))
        self.assertEqual(len(got), 1)
        self.assertIn("leak reported during kiwi_harness_warn", got[0])

    def test_declared_leak_report_passes(self):
        got = self.scan(ts(self.LEAK),
                        [("kiwi_harness_warn", 1, "leaked qp")])
        self.assertEqual(got, [])

    def test_kmemleak_off_fails_the_run(self):
        got = self.scan(ts(["kmemleak: Kernel memory leak detector "
                            "disabled"]))
        self.assertEqual(len(got), 1)
        self.assertIn("kmemleak turned itself off", got[0])

    def test_console_verdicts_by_level_and_window(self):
        """Case lines at the suite's level, per test window; a
        parameter's line (one level in) and another suite's are not."""
        got = kiwi_vm.console_verdicts(ts([
            "KIWI-BEGIN kiwi_conformance@loop",
            "    # Subtest: kc_suite",
            "        # Subtest: kc_a",
            "        ok 1 first parameter",
            "    ok 1 kc_a",
            "    not ok 2 kc_b",
            "    ok 3 kc_c # SKIP no scripts",
            "    # Subtest: other_suite",
            "    ok 1 x",
            "KIWI-END kiwi_conformance@loop rc=0",
            "    ok 4 outside",
        ]), {"kc_suite"})
        self.assertEqual(got, {
            ("kiwi_conformance@loop", "kc_suite", 1): ("kc_a", "pass"),
            ("kiwi_conformance@loop", "kc_suite", 2): ("kc_b", "fail"),
            ("kiwi_conformance@loop", "kc_suite", 3): ("kc_c", "skip"),
        })


if __name__ == "__main__":
    unittest.main()
