#!/usr/bin/env python3
"""The product's size limits (issue 21): no source file under app/, ui/, models/ or controller/
over 900 lines and no function over 120 lines. Prints the five longest of each.

Functions are found by their braces: a body is a `{ ... }` opened at namespace or class scope
whose head (the text since the previous `;`, `{` or `}` at that scope) holds a parameter list and
is not a class, struct, union, enum, namespace or an initializer (`= {`). Lambdas and local classes
count toward the function that holds them. Strings, character literals and comments are skipped.

usage: source_limits_test.py ROOT [--report]
"""
import pathlib
import re
import sys

PRODUCT = ("app", "ui", "models", "controller")
MAX_FILE_LINES = 900
MAX_FUNCTION_LINES = 120

SCOPE_HEAD = re.compile(r"\b(namespace|class|struct|union|enum)\b")


def strip_code(text):
    """The text with comments, strings, character literals and preprocessor lines blanked
    (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not text[i - 1].isalnum()):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = ")" + m.group(1) + '"'
            j = text.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'":
            # A digit separator (1'000) is not a character literal.
            if c == "'" and i > 0 and text[i - 1].isalnum() and i + 1 < n and text[i + 1].isalnum():
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    # Preprocessor lines (and their continuations) are no part of a head.
    lines = "".join(out).split("\n")
    directive = False
    for k, text_line in enumerate(lines):
        if directive or text_line.lstrip().startswith("#"):
            directive = text_line.rstrip().endswith("\\")
            lines[k] = ""
    return "\n".join(lines)


def functions(path):
    """(name, first line, line count) of each function body at namespace or class scope."""
    code = strip_code(path.read_text(encoding="utf-8"))
    found = []
    # Each open scope: (kind, first line, head); kinds: "scope" (namespace/class), "function",
    # "other" (an initializer, an enum's list, extern "C").
    stack = []
    head_start = 0
    line = 1
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c == "{":
            head = code[head_start:i]
            inside_function = any(kind == "function" for kind, _, _ in stack)
            if inside_function:
                kind = "other"
            elif SCOPE_HEAD.search(head.split("(")[0]):
                kind = "other" if re.search(r"\benum\b", head) else "scope"
            elif "(" in head and not head.strip().endswith(("=", ",")):
                kind = "function"
            elif re.search(r'extern\s+"', head):
                kind = "scope"
            else:
                kind = "other"
            stack.append((kind, line, head))
            head_start = i + 1
        elif c == "}":
            if stack:
                kind, start, head = stack.pop()
                if kind == "function":
                    name = " ".join(head.split())
                    name = name[: name.find("(")] if "(" in name else name
                    name = name.split()[-1] if name.split() else "?"
                    found.append((name, start, line - start + 1))
            head_start = i + 1
        elif c == ";":
            head_start = i + 1
        elif c == ":" and stack and stack[-1][0] == "scope":
            # public: / private: / protected: end a head.
            before = code[head_start:i].strip()
            if before in ("public", "private", "protected", "signals", "public slots", "private slots"):
                head_start = i + 1
    return found


def main():
    root = pathlib.Path(sys.argv[1])
    report = "--report" in sys.argv[2:]
    files = sorted(
        p
        for top in PRODUCT
        for p in (root / top).rglob("*")
        if p.suffix in (".cpp", ".h") and p.is_file()
    )
    if not files:
        print(f"no product sources under {root}")
        return 1
    sizes = []
    funcs = []
    for p in files:
        rel = p.relative_to(root)
        sizes.append((len(p.read_text(encoding="utf-8").splitlines()), str(rel)))
        for name, start, length in functions(p):
            funcs.append((length, f"{rel}:{start}", name))
    sizes.sort(reverse=True)
    funcs.sort(reverse=True)
    print("longest files:")
    for n, rel in sizes[:5]:
        print(f"  {n:5d}  {rel}")
    print("longest functions:")
    for n, where, name in funcs[:5]:
        print(f"  {n:5d}  {where}  {name}")
    failures = [f"{rel}: {n} lines (limit {MAX_FILE_LINES})" for n, rel in sizes if n > MAX_FILE_LINES]
    failures += [
        f"{where} {name}: {n} lines (limit {MAX_FUNCTION_LINES})"
        for n, where, name in funcs
        if n > MAX_FUNCTION_LINES
    ]
    if report:
        return 0
    for failure in failures:
        print("over the limit:", failure)
    print(f"{len(files)} files, {len(funcs)} functions read")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
