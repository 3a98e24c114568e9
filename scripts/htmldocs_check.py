#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the HTML manual make htmldocs built against the sources.

Every function a source file of kiwi's exports (EXPORT_SYMBOL,
EXPORT_SYMBOL_GPL, EXPORT_SYMBOL_IF_KUNIT …) must have its kernel-doc in
the generated pages: Sphinx's C domain gives each documented function an
anchor id="c.NAME". Exported data (a variable) is listed, not required:
kernel-doc documents functions and types only. Every .rst under
Documentation/ must be named in a toctree of Documentation/index.rst.

usage: scripts/htmldocs_check.py HTML_DIR
"""

import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXPORT = re.compile(r"^\s*EXPORT_SYMBOL\w*\(\s*(\w+)\s*\)", re.M)
ANCHOR = re.compile(r'id="c\.(\w+)"')
TOCTREE = re.compile(r"^\.\. toctree::.*?(?=^\S|\Z)", re.M | re.S)


def project_files(*patterns):
    """The work tree's files as git sees them (tracked, and untracked but
    not ignored), as scripts/lib.sh's project_files() lists them."""
    out = subprocess.run(["git", "-C", TOP, "ls-files", "--cached",
                          "--others", "--exclude-standard", "--"]
                         + list(patterns), check=True, text=True,
                         capture_output=True).stdout.split()
    return [f for f in out if os.path.exists(os.path.join(TOP, f))]


def exports():
    """[(symbol, file:line, is_function)] of every exported symbol."""
    found = []
    for f in project_files("*.c"):
        with open(os.path.join(TOP, f), errors="replace") as fh:
            text = fh.read()
        for m in EXPORT.finditer(text):
            name = m.group(1)
            line = text.count("\n", 0, m.start()) + 1
            # A function's definition opens a line: type, name, "(".
            func = re.search(r"^[A-Za-z_][\w \t\*]*\b%s\s*\(" % name, text,
                             re.M) is not None
            found.append((name, f"{f}:{line}", func))
    return found


def anchors(html_dir):
    ids = {}
    for root, _, files in os.walk(html_dir):
        for name in files:
            if not name.endswith(".html"):
                continue
            path = os.path.join(root, name)
            with open(path, errors="replace") as fh:
                for m in ANCHOR.finditer(fh.read()):
                    ids.setdefault(m.group(1), os.path.relpath(path,
                                                               html_dir))
    return ids


def unlisted_pages():
    doc = os.path.join(TOP, "Documentation")
    with open(os.path.join(doc, "index.rst")) as fh:
        index = fh.read()
    listed = set()
    for tree in TOCTREE.findall(index):
        for line in tree.splitlines()[1:]:
            entry = line.strip()
            if entry and not entry.startswith(":"):
                listed.add(entry)
    pages = [f[len("Documentation/"):-len(".rst")]
             for f in project_files("Documentation/*.rst")]
    return sorted(p for p in pages if p != "index" and p not in listed)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    ids = anchors(sys.argv[1])
    problems = []
    funcs = data = 0
    for name, where, func in exports():
        if not func:
            data += 1
            continue
        funcs += 1
        if name not in ids:
            problems.append(f"{where}: {name}() is exported, but its "
                            "kernel-doc is in no page of the manual")
    for page in unlisted_pages():
        problems.append(f"Documentation/{page}.rst: not in a toctree of "
                        "Documentation/index.rst")
    for p in problems:
        print("htmldocs: " + p, file=sys.stderr)
    if problems:
        return 1
    print(f"ok: {funcs} exported functions, each documented in the manual "
          f"({data} exported data symbol(s) left to their pages' text); "
          "every page in index.rst")
    return 0


if __name__ == "__main__":
    sys.exit(main())
