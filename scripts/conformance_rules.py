#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Hold the conformance kit's rule table and the provider guide's to one list.

tests/conformance/kc_rules.c names each rule with the cases that check it;
Documentation/provider-guide.rst, section "The rules", states each rule
and names the same cases. Prints every difference and exits 1 if there is
one; also prints the rules no case checks (gaps, not errors).

usage: conformance_rules.py [KC_RULES_C PROVIDER_GUIDE_RST]
"""
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KIT_RULE = re.compile(r'^\s*\{\s*"([a-z0-9-]+)",\s*"([^"]*)"\s*\},')
DOC_RULE = re.compile(r"^``([a-z0-9-]+)``$")
DOC_CASE = re.compile(r"``(kc_[a-z0-9_]+)``")


def kit_rules(path):
    """{rule: set of cases} of the kit's table."""
    rules = {}
    with open(path) as f:
        for line in f:
            m = KIT_RULE.match(line)
            if m:
                rules[m.group(1)] = set(m.group(2).split())
    return rules


def doc_rules(path):
    """{rule: set of cases} of the guide's section "The rules"."""
    rules = {}
    rule = None
    in_section = False
    with open(path) as f:
        lines = f.read().splitlines()
    for i, line in enumerate(lines):
        if line == "The rules" and i + 1 < len(lines) and \
                lines[i + 1].startswith("---"):
            in_section = True
            continue
        if not in_section:
            continue
        if i + 1 < len(lines) and re.match(r"^[=-]{3,}$", lines[i + 1]):
            break
        m = DOC_RULE.match(line)
        if m:
            rule = m.group(1)
            rules[rule] = set()
        elif rule and line.startswith("  "):
            rules[rule] |= set(DOC_CASE.findall(line))
        else:
            rule = None
    return rules


def compare(kit, doc):
    """The differences between the two tables, as lines."""
    problems = []
    for r in sorted(set(kit) - set(doc)):
        problems.append(f"rule {r}: in the kit, not in the guide")
    for r in sorted(set(doc) - set(kit)):
        problems.append(f"rule {r}: in the guide, not in the kit")
    for r in sorted(set(kit) & set(doc)):
        if kit[r] != doc[r]:
            problems.append(f"rule {r}: the kit names {sorted(kit[r])}, "
                            f"the guide {sorted(doc[r])}")
    return problems


def main(argv):
    kit_c = argv[1] if len(argv) > 2 else \
        os.path.join(TOP, "tests/conformance/kc_rules.c")
    guide = argv[2] if len(argv) > 2 else \
        os.path.join(TOP, "Documentation/provider-guide.rst")
    kit, doc = kit_rules(kit_c), doc_rules(guide)
    problems = compare(kit, doc)
    if not kit or not doc:
        problems.append(f"no rules read ({len(kit)} in the kit, "
                        f"{len(doc)} in the guide)")
    for p in problems:
        print(f"conformance rules: {p}")
    gaps = sorted(r for r, cases in kit.items() if not cases)
    print(f"conformance rules: {len(kit)} rules, "
          f"{len(kit) - len(gaps)} with a case; gaps: "
          f"{' '.join(gaps) or 'none'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
