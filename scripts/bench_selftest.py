#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Self-test of the benchmark's host-side arithmetic (make static): how a
timed command is given its host CPU and guest instructions, and how the
rounds of the idle and listener scenarios are set against their rounds
without, how the data-path transfers become rows (bench_report.py), how snapshots become instructions per
function and connection (bench_prof.py), how a KIWI-SNAP line
becomes a request for the plugin (bench_watch.py), and how the NVMe-oF
rows are judged and saved (bench_nvme.py). Synthetic inputs, known
answers."""

import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_nvme    # noqa: E402
import bench_prof    # noqa: E402
import bench_report  # noqa: E402
import bench_watch   # noqa: E402


def rate_line(stack, n, failed=0, conc=16):
    rec = {"cmd": "rate", "stack": stack, "conc": conc, "n": n,
           "failed": failed, "err": 0, "elapsed_ns": 10**9,
           "p50_ns": 1, "p99_ns": 2}
    return f"KIWI-BENCH {json.dumps(rec)} rc=0"


class Report(unittest.TestCase):
    # Written every millisecond: (host ns, instructions so far).
    INSNS = ([10, 20, 30], [100, 200, 300])

    def test_insns_at_is_the_last_count_at_or_before(self):
        at = bench_report.insns_at
        self.assertEqual(at(self.INSNS, 5), 100)     # before the first
        self.assertEqual(at(self.INSNS, 20), 200)
        self.assertEqual(at(self.INSNS, 29), 200)
        self.assertEqual(at(self.INSNS, 99), 300)

    def test_a_rate_run_gets_cpu_and_instructions_of_its_window(self):
        lines = ["KIWI-START rate kiwi 1 16 10", rate_line("kiwi", 10, 2),
                 "KIWI-DONE"]
        cpu = {1: (1000, 15), 2: (9000, 31), 3: (9500, 40)}
        runs = bench_report.parse(lines, cpu, self.INSNS)[0]
        rec = runs["kiwi"][0]
        self.assertEqual(rec["cpu_ns"], 8000)
        self.assertEqual(rec["insns"], 300 - 100)
        # per connection that opened: 8 of 10
        self.assertAlmostEqual(bench_report.insns_k(rec), 0.2 / 8)
        self.assertAlmostEqual(bench_report.cpu_ms(rec), 0.008 / 8)

    def test_without_counts_there_are_no_instructions(self):
        lines = ["KIWI-START rate tcp 1 16 10", rate_line("tcp", 10),
                 "KIWI-DONE"]
        rec = bench_report.parse(lines, {1: (0, 0), 2: (10, 5)})[0]["tcp"][0]
        self.assertNotIn("insns", rec)
        self.assertIsNone(bench_report.insns_k(rec))

    def test_datapath_rows_are_mbps_cpu_and_ping_percentiles(self):
        def dp(cmd, stack, size, nbytes, ns, err=0, **kw):
            rec = {"cmd": cmd, "stack": stack, "size": size, "depth": 16,
                   "err": err, "bytes": nbytes, "ops": 1, "ns": ns}
            rec.update(kw)
            return f"KIWI-BENCH {json.dumps(rec)} rc={-err if err else 0}"
        lines = ["KIWI-START write tcp 1 4096 16",
                 dp("write", "tcp", 4096, 2 * 10**9, 10**9),
                 "KIWI-START write kiwi 1 4096 16",
                 dp("write", "kiwi", 4096, 10**9, 10**9),
                 dp("write", "linux", 4096, 0, 0, err=-5),
                 dp("ping", "kiwi", 64, 64, 10**6, p50_ns=30000,
                    p99_ns=90000),
                 dp("send", "kiwi", 4096, 4 * 10**9, 10**9, conns=4),
                 "KIWI-PHASE kiwi datapath-mtu9000",
                 dp("send", "kiwi", 4096, 3 * 10**9, 10**9),
                 "KIWI-PHASE kiwi datapath",
                 "KIWI-PHASE kiwi datapath-crc",
                 dp("write", "kiwi", 4096, 5 * 10**8, 10**9),
                 "KIWI-DONE"]
        # QEMU used 4 s of CPU for TCP's 2 GB, 1 s for kiwi's 1 GB
        cpu = {1: (0, 0), 2: (4 * 10**9, 0), 3: (0, 0), 4: (10**9, 0)}
        runs, _, problems, notes = bench_report.parse(lines, cpu)
        # Linux's failed transfer is a note; kiwi's would fail the run
        self.assertEqual(len(notes), 1)
        self.assertEqual(problems, [])
        bad = lines[:-1] + [dp("read", "kiwi", 4096, 0, 0, err=-5),
                            "KIWI-DONE"]
        self.assertEqual(len(bench_report.parse(bad, cpu)[2]), 1)
        rows = {(r["test"], r["unit"]): r
                for r in bench_report.datapath_rows(runs)}
        bw = rows[("write", "MB/s")]
        self.assertEqual((bw["tcp"], bw["kiwi"], bw["linux"]),
                         (2000.0, 1000.0, None))
        self.assertEqual(bw["size"], 4096)
        cost = rows[("write", "host CPU s/GB")]
        self.assertEqual((cost["tcp"], cost["kiwi"]), (2.0, 1.0))
        self.assertEqual(rows[("ping", "us p50")]["kiwi"], 30.0)
        self.assertEqual(rows[("ping", "us p99")]["kiwi"], 90.0)
        self.assertIsNone(rows[("ping", "us p50")]["tcp"])
        self.assertEqual(rows[("send x4", "MB/s")]["kiwi"], 4000.0)
        self.assertIsNone(rows[("send x4", "MB/s")]["tcp"])
        self.assertEqual(rows[("send@9000", "MB/s")]["kiwi"], 3000.0)
        self.assertIsNone(rows[("send@9000", "MB/s")]["tcp"])
        # with CRC on: kiwi's own row, against the baseline's plain one
        crc = rows[("write+crc", "MB/s")]
        self.assertEqual((crc["kiwi"], crc["tcp"], crc["linux"]),
                         (500.0, 2000.0, None))

    def test_instruction_ratios_are_taken_round_by_round(self):
        recs = {s: [] for s in ("tcp", "kiwi")}
        for rnd, (t, k) in enumerate(((100, 150), (200, 320))):
            for s, n in (("tcp", t), ("kiwi", k)):
                recs[s].append({"cmd": "rate", "conc": 16, "n": 1,
                                "failed": 0, "elapsed_ns": 10**9,
                                "insns": n * 1000, "round": rnd})
        summ = {s: {"c16": bench_report.main_line(r)}
                for s, r in recs.items()}
        got = bench_report.paired_ratio(summ, 16, "insns_k", "kiwi", "tcp")
        self.assertAlmostEqual(got, (1.5 + 1.6) / 2)

    @staticmethod
    def scenario(rounds):
        """Rate records of one stack, (phase, connections in one second,
        instructions per connection) each, behind their KIWI-PHASE."""
        recs = []
        for phase, n, k in rounds:
            recs.append({"cmd": "phase", "name": phase})
            recs.append({"cmd": "rate", "conc": 16, "n": n, "failed": 0,
                         "elapsed_ns": 10**9, "insns": n * k * 1000})
        return bench_report.summarize(recs, {}, "kiwi")

    def test_idle_rounds_are_set_against_every_round_without(self):
        summ = self.scenario([("idle-none", 100, 50), ("idle-none", 80, 50),
                              ("idle-with", 81, 55), ("idle-with", 90, 50),
                              ("idle-none", 60, 40)])["idle"]
        # the median round without: 80 connections/s, 50k instructions
        self.assertAlmostEqual(summ["rel"], (81 / 80 + 90 / 80) / 2)
        self.assertAlmostEqual(summ["rel_insns_min"], 50 / 55)
        self.assertAlmostEqual(summ["rel_insns_max"], 1.0)
        self.assertEqual(summ["rate_none_before"], 90)
        self.assertEqual(summ["rate_none_after"], 60)
        # no host CPU times here, so no speed of the VM either
        self.assertEqual(summ["ns_per_insn"], [None] * 3)

    def test_the_vms_speed_is_host_ns_per_guest_instruction(self):
        # 1 ms of host CPU and 100 thousand instructions per connection
        self.assertAlmostEqual(bench_report.ns_per_insn((5, 1.0, 100)), 10)
        self.assertIsNone(bench_report.ns_per_insn((5, None, 100)))

    def test_listener_rounds_are_set_against_their_neighbours(self):
        summ = self.scenario([("listen-none", 100, 40),
                              ("listen-with", 90, 50),
                              ("listen-none", 80, 60),
                              ("listen-with", 40, 75)])["listeners"]
        self.assertAlmostEqual(summ["rel_min"], 40 / 80)
        self.assertAlmostEqual(summ["rel_max"], 90 / 90)
        # costs: without over with, from the mean of the neighbours
        self.assertAlmostEqual(summ["rel_insns_max"], 50 / 50)
        self.assertAlmostEqual(summ["rel_insns_min"], 60 / 75)
        self.assertIsNone(summ["rel_cpu"])


class Prof(unittest.TestCase):
    def test_snapshots_become_instructions_per_connection(self):
        with tempfile.TemporaryDirectory() as d:
            results = os.path.join(d, "results.log")
            with open(results, "w") as f:
                print("KIWI-SNAP a.0", file=f)
                print("KIWI-START rate kiwi 1 16 4", file=f)
                print(rate_line("kiwi", 4), file=f)
                print("KIWI-SNAP a.1", file=f)
                print("KIWI-SYM ffffffff81000000 f_one", file=f)
                print("KIWI-SYM ffffffff81000100 f_two", file=f)
                print("KIWI-SYM ffffffffc0000000 g [kiwi_iwcm]", file=f)
            syms, pairs = bench_prof.read_results(results)
            self.assertEqual(pairs, {"a": 4})
            before = {0xffffffff81000010: 40, 0xffffffff81000120: 8}
            after = {0xffffffff81000010: 80, 0xffffffff81000120: 8,
                     0xffffffff81000180: 12, 0xffffffffc0000004: 400,
                     0x401000: 4}
            got = bench_prof.by_function(syms, before, after, 4)
        self.assertEqual(got[("f_one", "kernel")], 10)
        self.assertEqual(got[("f_two", "kernel")], 3)  # new block only
        self.assertEqual(got[("g", "kiwi_iwcm")], 100)
        self.assertEqual(got[("user", "user")], 1)


def nvme_line(stack, mode, bs, depth, iops, mbps, rc=0):
    return (f"KIWI-NVME {stack} {mode} {bs} {depth} ios=1 bytes=1 "
            f"seconds=1 iops={iops} mbps={mbps} p50_us=1 p99_us=2 "
            f"errors=0 rc={rc}")


class Nvme(unittest.TestCase):
    def run_report(self, lines):
        with tempfile.TemporaryDirectory() as d:
            res, con, out = (os.path.join(d, n) for n in
                             ("results.log", "console.log", "r.json"))
            with open(res, "w") as f:
                f.write("\n".join(lines) + "\n")
            with open(con, "w") as f:
                f.write("boot\n")
            with open(out, "w") as f:
                json.dump({"machine": "m", "datapath": [
                    {"test": "send", "size": 1}, {"test": "nvme old"}]}, f)
            argv, sys.argv = sys.argv, ["bench_nvme.py", res, con, out]
            try:
                with open(os.devnull, "w") as null:
                    stdout, sys.stdout = sys.stdout, null
                    try:
                        rc = bench_nvme.main()
                    finally:
                        sys.stdout = stdout
            finally:
                sys.argv = argv
            with open(out) as f:
                return rc, json.load(f)

    def full(self):
        lines = []
        for mode, bs, depth in bench_nvme.LOADS:
            for stack, iops in (("kiwi", 900), ("linux", 500),
                                ("tcp", 1000)):
                lines.append(nvme_line(stack, mode, bs, depth, iops,
                                       iops / 10))
        return lines + ["KIWI-DONE"]

    def test_rows_keep_other_rows_and_replace_old_nvme_ones(self):
        rc, data = self.run_report(self.full())
        self.assertEqual(rc, 0)
        self.assertEqual(data["machine"], "m")
        tests = [r["test"] for r in data["datapath"]]
        self.assertEqual(tests, ["send", "nvme randread", "nvme randwrite",
                                 "nvme read", "nvme write"])
        row = data["datapath"][1]
        self.assertEqual((row["kiwi"], row["linux"], row["nvme_tcp"],
                          row["unit"]), (900.0, 500.0, 1000.0, "IOPS"))
        self.assertEqual(data["datapath"][3]["kiwi"], 90.0)  # MB/s

    def test_a_missing_or_failed_load_fails(self):
        lines = self.full()
        self.assertEqual(self.run_report(lines[1:])[0], 1)
        lines[0] = lines[0].replace("rc=0", "rc=1")
        self.assertEqual(self.run_report(lines)[0], 1)

    def test_a_vm_that_did_not_finish_fails(self):
        self.assertEqual(self.run_report(self.full()[:-1])[0], 1)

    def test_verdicts(self):
        v = bench_nvme.verdict
        self.assertEqual(v(950, 500, 1000), "yes")
        self.assertTrue(v(400, 500, 1000).startswith("no: below siw"))
        self.assertTrue(v(800, 500, 1000).startswith("no: 0.80x NVMe/TCP"))
        # 1.5x siw would exceed NVMe/TCP: 0.9x NVMe/TCP is enough
        self.assertEqual(v(950, 700, 1000), "yes")
        # 0.95x NVMe/TCP but 1.48x siw, and 1.5x siw is within NVMe/TCP
        self.assertEqual(v(950, 640, 1000), "no: 1.48x siw, want 1.5x")


class Watch(unittest.TestCase):
    def test_a_snap_line_becomes_a_request(self):
        with tempfile.TemporaryDirectory() as d:
            prefix = os.path.join(d, "prof")
            bench_watch.request_snapshot(prefix, "KIWI-SNAP kiwi.0")
            with open(prefix + ".req") as f:
                self.assertEqual(f.read(), "kiwi.0\n")
            os.unlink(prefix + ".req")
            bench_watch.request_snapshot(prefix, "KIWI-SNAP ")
            self.assertFalse(os.path.exists(prefix + ".req"))


if __name__ == "__main__":
    unittest.main()
