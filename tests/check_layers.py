#!/usr/bin/env python3
"""Checks the include graph against the layer table of docs/ARCHITECTURE.md ("Layers").

Every quoted #include of a C or C++ file under the table's folders is resolved to the file it
names (beside the including file first, then under the include roots src/, bench/, tools/,
include/), and the folder holding that file must be the including file's own, or one its row
allows, or include/adaptcore (the public API, which every folder may include). A row lists the
folders a folder may include directly; the table is the one statement of the rules, so the
document and this check cannot disagree. Exits 1 with one line per include that points the
wrong way, or per include that cannot be resolved.

    python3 tests/check_layers.py [repository root]
"""

import os
import re
import sys

INCLUDE_ROOTS = ["src", "bench", "tools", "include", "experiments"]
SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".h", ".hpp")
PUBLIC = "include/adaptcore"
# Headers the build generates (not in the source tree), as the folder they belong to: the list of
# registry levels a build compiles (cmake/AdaptcoreLevels.cmake).
GENERATED = {"kernels/levels_built.hpp": "src/kernels/levels_built.hpp"}


def read_table(root):
    """{folder: set of folders it may include} from the "Layers" table of ARCHITECTURE.md."""
    path = os.path.join(root, "docs", "ARCHITECTURE.md")
    rules, in_section = {}, False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                in_section = line.strip().lstrip("#").strip() == "Layers"
                continue
            if not in_section or not line.startswith("| `"):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            folder = cells[0].strip("`")
            allowed = set(re.findall(r"`([^`]+)`", cells[1])) if len(cells) > 1 else set()
            rules[folder] = allowed
    if not rules:
        sys.exit(f"check_layers: no Layers table in {path}")
    return rules


def folder_of(rel, folders):
    """The longest table folder (or the public API) holding repository path rel, or None."""
    best = None
    for f in list(folders) + [PUBLIC]:
        if (rel == f or rel.startswith(f + "/")) and (best is None or len(f) > len(best)):
            best = f
    return best


def resolve(root, including, name):
    here = os.path.dirname(including)
    for base in [here] + [os.path.join(root, r) for r in INCLUDE_ROOTS]:
        candidate = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(candidate):
            return os.path.relpath(candidate, root)
    return None


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), ".."))
    rules = read_table(root)
    include_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    faults, files, edges = [], 0, 0
    for folder in sorted(rules):
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, folder)):
            dirnames.sort()
            for fn in sorted(filenames):
                if not fn.endswith(SOURCE_SUFFIXES):
                    continue
                path = os.path.join(dirpath, fn)
                rel = os.path.relpath(path, root)
                own = folder_of(rel, rules)
                if own != folder:
                    continue  # a subfolder with a row of its own
                files += 1
                with open(path, encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        m = include_re.match(line)
                        if not m:
                            continue
                        target = resolve(root, path, m.group(1)) or GENERATED.get(m.group(1))
                        if target is None:
                            faults.append(f"{rel}:{number}: cannot resolve \"{m.group(1)}\"")
                            continue
                        to = folder_of(target, rules)
                        edges += 1
                        if to in (own, PUBLIC) or to in rules[own]:
                            continue
                        faults.append(f"{rel}:{number}: {own} -> {to or target} "
                                      f"(\"{m.group(1)}\"; {own} may include: "
                                      f"{', '.join(sorted(rules[own])) or 'only itself'})")
    for line in faults:
        print(line)
    print(f"check_layers: {files} files, {edges} includes checked against {len(rules)} rows, "
          f"{len(faults)} pointing the wrong way")
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main())
