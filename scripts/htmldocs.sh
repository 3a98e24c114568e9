#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make htmldocs: build the manual, Documentation/, into build/htmldocs/
# with Sphinx (Debian's python3-sphinx) and Linux's kernel-doc. kernel-doc
# and its Sphinx extension come from Debian's linux-source-6.1 (the tree
# scripts/test-kernel.sh --source extracts once), copied into
# build/htmldocs-tools/ at each build; nothing of Linux's is committed.
#
# Sphinx runs nitpicky (-n: every cross-reference must resolve) with
# warnings as errors (-W --keep-going). The build fails on any Sphinx
# warning, on any warning kernel-doc prints while Sphinx runs it, and when
# scripts/htmldocs_check.py finds an exported function whose kernel-doc is
# not in the generated reference pages, or a page index.rst does not
# list. The static checks (scripts/static.sh) run it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

t0=$(date +%s)
src=$(bash "$top/scripts/test-kernel.sh" --source)
tools=$build/htmldocs-tools
out=$build/htmldocs
doctrees=$build/htmldocs-doctrees
logf=$build/htmldocs.log

rm -rf "$tools" "$out" "$doctrees"
mkdir -p "$tools"
cp "$src/Documentation/sphinx/kerneldoc.py" \
	"$src/Documentation/sphinx/kernellog.py" "$tools/"
install -m 0755 "$src/scripts/kernel-doc" "$tools/kernel-doc"

rc=0
KIWI_DOCS_TOOLS=$tools sphinx-build -b html -n -W --keep-going -q \
	-j "$(nproc)" -d "$doctrees" "$top/Documentation" "$out" \
	>"$logf" 2>&1 || rc=$?
# kernel-doc's own complaints reach stderr without passing through
# Sphinx's logger, so -W does not see them.
if [ "$rc" != 0 ] || grep -qiE "warning|error" "$logf"; then
	grep -iE "warning|error" "$logf" | head -40 >&2 || cat "$logf" >&2
	die "htmldocs: Sphinx or kernel-doc warned (log: $logf)"
fi
python3 -B "$top/scripts/htmldocs_check.py" "$out" ||
	die "htmldocs: the manual is missing exported functions or pages"
echo "ok: $out/index.html ($(($(date +%s) - t0)) s)"
