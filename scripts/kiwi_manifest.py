#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The manifest of the KUnit results each test module must report.

tests/manifest lists, one per line, "MODULE SUITE CASE PARAMS": every case
of every suite, with the number of parameters a parameterised case runs
(0 for a plain case). The VM harness (kiwi_vm.py) fails a run in which a
test module that ran left out a listed suite or case, or ran fewer
parameters than listed; so dropping a suite's results, or a row of a
parameter table, cannot pass unnoticed. Every suite it lists must be
named, as a whole word, in the manual (Documentation/, *.rst), so that a
new suite cannot go undescribed.

  kiwi_manifest.py check MANIFEST        every KUNIT_CASE of tests/ listed,
                                         nothing listed that is gone, and
                                         every suite named in the manual
  kiwi_manifest.py write RESULTS...      a manifest from runs' results.log
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

CASES = re.compile(r"static\s+struct\s+kunit_case\s+(\w+)\s*\[\s*\]\s*=\s*"
                   r"\{(.*?)\n\};", re.S)
CASE = re.compile(r"KUNIT_CASE(?:_PARAM)?\(\s*(\w+)")
SUITE = re.compile(r"(?:static\s+)?struct\s+kunit_suite\s+\w+\s*=\s*\{(.*?)\n\};",
                   re.S)
FIELD = re.compile(r"\.(name|test_cases)\s*=\s*\"?([\w]+)\"?")
WORD = re.compile(r"\w+")


def load(path):
    """{(module, suite, case): params} from a manifest file."""
    want = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) != 4 or not parts[3].isdigit():
                raise ValueError(f"{path}:{n}: want MODULE SUITE CASE "
                                 f"PARAMS: {line}")
            want[tuple(parts[:3])] = int(parts[3])
    return want


def source_cases(root):
    """{(suite, case)} declared by the KUnit sources under @root."""
    found = set()
    for top, _, files in os.walk(root):
        for name in files:
            if not name.endswith(".c"):
                continue
            with open(os.path.join(top, name)) as f:
                text = f.read()
            arrays = {m.group(1): CASE.findall(m.group(2))
                      for m in CASES.finditer(text)}
            for m in SUITE.finditer(text):
                fields = dict(FIELD.findall(m.group(1)))
                for case in arrays.get(fields.get("test_cases"), []):
                    found.add((fields["name"], case))
    return found


def doc_words(docs):
    """{word} of the .rst files under @docs (a word as grep -w has it)."""
    words = set()
    for top, _, files in os.walk(docs):
        for name in files:
            if not name.endswith(".rst"):
                continue
            with open(os.path.join(top, name), encoding="utf-8") as f:
                words.update(WORD.findall(f.read()))
    return words


def check(path, root):
    want = {(s, c) for _, s, c in load(path)}
    have = source_cases(root)
    suites = {s for s, _ in want}
    docs = os.path.join(os.path.dirname(root), "Documentation")
    problems = [f"{s} {c}: in the sources, not in {path}"
                for s, c in sorted(have - want)]
    problems += [f"{s} {c}: in {path}, not in the sources"
                 for s, c in sorted(want - have)]
    problems += [f"{s}: in {path}, named in no Documentation/*.rst: "
                 f"describe the suite"
                 for s in sorted(suites - doc_words(docs))]
    for p in problems:
        print(p, file=sys.stderr)
    if not problems:
        print(f"ok: {len(want)} cases listed, as in the sources; "
              f"{len(suites)} suites, each named in the manual")
    return 1 if problems else 0


def write(results):
    import kiwi_vm
    rows = {}
    for path in results:
        state = kiwi_vm.parse_results(kiwi_vm.read_lines(path))
        for (mod, suite), lines in state["suites"].items():
            cases, _, _ = kiwi_vm.parse_ktap(lines)
            for _, name, _, params in cases:
                rows[(mod, suite, name)] = params
    print("# SPDX-License-Identifier: GPL-2.0")
    print("# MODULE SUITE CASE PARAMS: see scripts/kiwi_manifest.py")
    for key in sorted(rows):
        print(" ".join(key), rows[key])
    return 0


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "check":
        root = os.path.join(os.path.dirname(os.path.abspath(sys.argv[2])))
        return check(sys.argv[2], root)
    if len(sys.argv) >= 3 and sys.argv[1] == "write":
        return write(sys.argv[2:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
