#!/usr/bin/env python3
"""The README's layout table against the tree: it names every folder it must, and nothing gone.

    readme_layout_test.py SOURCE_DIR [README]      (README defaults to SOURCE_DIR/README.md)

The table is the first Markdown table after the heading "## Layout". Rules:

1. Every row's first cell is one backticked folder path ending in "/" (`controller/kube/`).
2. The first cells name every folder directly under controller/ and every folder directly under
   those (controller/X/ and controller/X/Y/: two levels, which is where the controller's parts
   are), and every folder the top-level CMakeLists.txt adds with add_subdirectory(). Folders whose
   names start with "." or "_" are not counted.
3. Every backticked token anywhere in the table that looks like a path of the repository exists
   (a folder when it ends in "/"). A token looks like a path when it contains "/", has no space,
   does not start with "/", "~", "$" or "-", and has none of `*{}<>|:=`. Paths under shared/ (the
   project folder beside this repository) are not checked.

After checking the README it checks itself: the same text with one controller row removed, and
with a row for a folder that does not exist, must both fail. Standard library only.
"""

import os
import re
import sys

PATH_CHARS_REJECTED = set("*{}<>|:= \t")


def layout_table(text):
    """The rows of the layout table as lists of cells, or None when there is none."""
    lines = text.splitlines()
    start = None
    for i, line in enumerate(lines):
        if re.match(r"^##\s+Layout\s*$", line):
            start = i + 1
            break
    if start is None:
        return None
    rows = []
    in_table = False
    for line in lines[start:]:
        if line.startswith("#"):
            break
        stripped = line.strip()
        if stripped.startswith("|"):
            in_table = True
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", stripped.strip("|"))]
            rows.append(cells)
        elif in_table:
            break
    if len(rows) < 2:
        return None
    # rows[0] is the header, rows[1] the |---| separator.
    return rows[2:]


def backticked(cell):
    return re.findall(r"`([^`]+)`", cell)


def looks_like_path(token):
    if "/" not in token or token[0] in "/~$-":
        return False
    return not any(c in PATH_CHARS_REJECTED for c in token)


def required_folders(root):
    required = set()
    controller = os.path.join(root, "controller")
    for name in sorted(os.listdir(controller)):
        part = os.path.join(controller, name)
        if name[0] in "._" or not os.path.isdir(part):
            continue
        required.add("controller/%s/" % name)
        for sub in sorted(os.listdir(part)):
            if sub[0] not in "._" and os.path.isdir(os.path.join(part, sub)):
                required.add("controller/%s/%s/" % (name, sub))
    with open(os.path.join(root, "CMakeLists.txt"), encoding="utf-8") as f:
        for name in re.findall(r"^\s*add_subdirectory\(\s*([^\s)]+)", f.read(), re.M):
            required.add(name.rstrip("/") + "/")
    return required


def problems(text, root):
    rows = layout_table(text)
    if rows is None:
        return ["no table after a '## Layout' heading"]
    found = []
    named = set()
    for cells in rows:
        first = cells[0] if cells else ""
        paths = backticked(first)
        if len(paths) != 1 or first != "`%s`" % paths[0] or not paths[0].endswith("/"):
            found.append("row %r: the first cell must be one backticked folder ending in '/'" % first)
        else:
            named.add(paths[0])
        for cell in cells:
            for token in backticked(cell):
                if not looks_like_path(token) or token.startswith("shared/"):
                    continue
                target = os.path.join(root, token)
                if token.endswith("/") and not os.path.isdir(target):
                    found.append("`%s` is named but there is no such folder" % token)
                elif not os.path.exists(target):
                    found.append("`%s` is named but there is no such file or folder" % token)
    for folder in sorted(required_folders(root) - named):
        found.append("`%s` exists but the table has no row for it" % folder)
    return found


def self_check(text, root):
    """The check must fail on a row removed and on a row for a folder that is gone."""
    lines = text.splitlines(keepends=True)
    row = next((i for i, l in enumerate(lines) if l.lstrip().startswith("| `controller/")), None)
    if row is None:
        return ["self-check: no controller row to remove"]
    removed = re.match(r"\s*\|\s*`([^`]+)`", lines[row]).group(1)
    without = "".join(lines[:row] + lines[row + 1:])
    failures = []
    if not any(removed in p for p in problems(without, root)):
        failures.append("self-check: removing the row of `%s` was not caught" % removed)
    gone = "controller/no-such-part/"
    with_gone = "".join(lines[:row] + ["| `%s` | gone |\n" % gone] + lines[row:])
    if not any(gone in p for p in problems(with_gone, root)):
        failures.append("self-check: a row for `%s` was not caught" % gone)
    return failures


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    root = sys.argv[1]
    readme = sys.argv[2] if len(sys.argv) == 3 else os.path.join(root, "README.md")
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    found = problems(text, root)
    if found:
        for p in found:
            print("FAIL: %s: %s" % (readme, p), file=sys.stderr)
        return 1
    print("ok   %s: the layout table names every folder it must, and nothing that is gone" % readme)
    failures = self_check(text, root)
    for p in failures:
        print("FAIL: %s" % p, file=sys.stderr)
    if failures:
        return 1
    print("ok   the check fails on a row removed and on a folder that is gone")
    return 0


if __name__ == "__main__":
    sys.exit(main())
