#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks the house's size rule (docs/ARCHITECTURE.md, "House rules"): every
function defined in a non-test source under the given folders is at most
MAX_LINES lines from its signature to its closing brace and takes at most
MAX_PARAMS parameters. A lambda counts toward the function that holds it.

The scan is lexical: comments, string and character literals are blanked
first, then every '{' at a depth outside any function body is classified by
the text since the previous ';', '{' or '}' at that depth: a function body
when that text holds a parameter list and names no namespace, class, struct,
union or enum and does not end in '=' (an initialiser).
The functions over a limit when the rule was written are listed in
scripts/function_size_debts.txt, one "path name lines|params" line each: a
ratchet. A function over a limit that is not listed fails, and so does a
listed one that is no longer over (remove its line: the list only shrinks).
Usage: check_function_size.py REPO_ROOT FOLDER...; exit 1 listing each
unlisted function over a limit and each stale line of the list."""
import pathlib
import re
import sys

MAX_LINES = 80
MAX_PARAMS = 5
DEBTS = pathlib.Path(__file__).with_name("function_size_debts.txt")
SOURCE_SUFFIXES = {".cc", ".h", ".cu", ".cuh"}
NOT_A_FUNCTION = re.compile(r"\b(namespace|class|struct|union|enum)\b")
CONTROL = re.compile(r"^\s*(if|for|while|switch|catch|else|do)\b")


def blank_comments_and_literals(text: str) -> str:
    """The text with comments, string and char literals replaced by spaces,
    newlines kept so line numbers hold. Raw strings R"d( ... )d" included."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i)
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
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
            j = min(j + 1, n)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def strip_preprocessor(text: str) -> str:
    """Blank preprocessor lines (continuations included)."""
    lines = text.split("\n")
    out, cont = [], False
    for line in lines:
        if cont or line.lstrip().startswith("#"):
            cont = line.rstrip().endswith("\\")
            out.append("")
        else:
            out.append(line)
    return "\n".join(out)


def parameter_count(head: str) -> int:
    """The parameters of the first top-level parameter list in a function's
    head (the text before its body)."""
    # The parameter list is the last top-level (...) before any trailing
    # qualifiers; for `auto f(a) -> T` and `f(a) const noexcept` the first
    # group after the name. Take the group that follows the last identifier
    # before the first top-level '('.
    start = head.find("(")
    if start < 0:
        return 0
    depth, j = 0, start
    for j in range(start, len(head)):
        if head[j] in "(<[{":
            depth += 1 if head[j] in "([{" else 0
        if head[j] in ")]}":
            depth -= 1
            if depth == 0:
                break
    inner = head[start + 1:j].strip()
    if not inner or inner == "void":
        return 0
    count, depth, angle = 1, 0, 0
    for ch in inner:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "<":
            angle += 1
        elif ch == ">":
            angle = max(0, angle - 1)
        elif ch == "," and depth == 0 and angle == 0:
            count += 1
    return count


def functions(text: str):
    """Yields (name, first_line, last_line, params) of each function body."""
    clean = strip_preprocessor(blank_comments_and_literals(text))
    stack = []  # per open brace: True when it is or is inside a function body
    head_start = 0
    for i, ch in enumerate(clean):
        if ch == "{":
            inside = bool(stack) and stack[-1][0]
            if inside:
                stack.append((True, None))
                continue
            head = clean[head_start:i]
            flat = " ".join(head.split())
            is_fn = ("(" in flat and not NOT_A_FUNCTION.search(flat.split("(")[0])
                     and not flat.endswith("=") and not CONTROL.match(flat))
            if is_fn:
                name_m = re.search(r"([~\w:]+(?:operator\s*[^\s(]+)?)\s*\(", flat)
                name = name_m.group(1) if name_m else flat[:40]
                first = clean.count("\n", 0, head_start + len(head) - len(head.lstrip())) + 1
                stack.append((True, (name, first, parameter_count(flat))))
            else:
                stack.append((False, None))
            head_start = i + 1
        elif ch == "}":
            if not stack:
                continue
            _, info = stack.pop()
            if info is not None:
                name, first, params = info
                yield name, first, clean.count("\n", 0, i) + 1, params
            if not stack or not stack[-1][0]:
                head_start = i + 1
        elif ch == ";" and not (stack and stack[-1][0]):
            head_start = i + 1


def read_debts() -> set:
    """The listed debts as (path, name, kind) keys; '#' starts a comment."""
    if not DEBTS.exists():
        return set()
    keys = set()
    for line in DEBTS.read_text(encoding="utf-8").splitlines():
        fields = line.split("#", 1)[0].split()
        if fields:
            keys.add(tuple(fields))
    return keys


def main() -> int:
    root = pathlib.Path(sys.argv[1]).resolve()
    folders = sys.argv[2:]
    debts = read_debts()
    problems, owed = [], set()
    checked = 0
    for folder in folders:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in SOURCE_SUFFIXES or "test" in path.relative_to(root).parts:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            for name, first, last, params in functions(text):
                checked += 1
                lines = last - first + 1
                rel = path.relative_to(root)
                for kind, over, text in (
                        ("lines", lines > MAX_LINES, f"is {lines} lines (at most {MAX_LINES})"),
                        ("params", params > MAX_PARAMS, f"takes {params} parameters (at most {MAX_PARAMS})")):
                    key = (rel.as_posix(), name, kind)
                    if over and key in debts:
                        owed.add(key)
                    elif over:
                        problems.append(f"{rel}:{first}: {name} {text}")
    scanned = tuple(f.rstrip("/") + "/" for f in folders)
    stale = sorted(k for k in debts - owed if k[0].startswith(scanned))
    for p in problems:
        print(p)
    for k in stale:
        print(f"{DEBTS.name}: '{' '.join(k)}' is no longer over its limit: remove the line")
    print(f"{checked} functions under {', '.join(folders)}: {len(problems)} over the limits and unlisted, "
          f"{len(owed)} listed debts, {len(stale)} stale")
    return 1 if problems or stale else 0


if __name__ == "__main__":
    sys.exit(main())
