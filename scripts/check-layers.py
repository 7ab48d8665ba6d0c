#!/usr/bin/env python3
"""The include layering of src/: no file includes one of a higher layer (an include that runs
back up), except those listed in scripts/layer-exceptions.txt, the ones that predate this check
and are to be moved away ([family-modules]). Fails on a new one, and on a listed one that is
gone (take it off the list: the list only shrinks). Run from anywhere; CI runs it.

  scripts/check-layers.py            check, print the count
  scripts/check-layers.py --list     print every include that runs back up (the list's format)
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src")
EXCEPTIONS = os.path.join(ROOT, "scripts", "layer-exceptions.txt")

# Bottom to top; a file may include its own layer and the ones below. "backend" is the abstract
# backend interface (src/backend/*.hpp, below the families, beside the handle that owns it); the
# backends' kernels and solvers (src/backend/cpu, src/backend/cuda) and what both build the same
# way (src/backend/common: every family's registry) sit above everything they implement. "solver" holds what every family's solvers share; each family folder holds its own
# problem, solver contract, front-end and registry. Families are one layer: one may use another
# (rnn uses dropout, fusion's steps use conv and bn).
LAYERS = [
    ["core"],
    ["db"],
    ["handle", "backend"],
    ["solver"],
    ["activation", "bn", "conv", "ctc", "dropout", "lrn", "mha", "pooling", "reduction", "rnn",
     "softmax", "tensor_ops"],
    ["fusion"],
    ["find2"],
    ["backend/common", "backend/cpu", "backend/cuda"],
    ["api", "af"],
]
LEVEL = {name: i for i, names in enumerate(LAYERS) for name in names}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
EXTENSIONS = (".cpp", ".hpp", ".cu", ".cuh", ".inc", ".h")


def part_of(rel):
    """The layer name of a path relative to src/."""
    parts = rel.split("/")
    if parts[0] == "backend" and len(parts) > 2:
        return "backend/" + parts[1]
    return parts[0] if len(parts) > 1 else None


def back_up_includes():
    found = []
    for folder, _, names in os.walk(SRC):
        for name in sorted(names):
            if not name.endswith(EXTENSIONS):
                continue
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, SRC)
            here = part_of(rel)
            if here not in LEVEL:
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                for line in f:
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    target = m.group(1)
                    # Includes are written from src/ (the include folder) or next to the file.
                    for candidate in (os.path.join(SRC, target),
                                      os.path.join(folder, target)):
                        if os.path.isfile(candidate):
                            there = part_of(os.path.relpath(candidate, SRC))
                            if there in LEVEL and LEVEL[there] > LEVEL[here]:
                                found.append(f"src/{rel} -> src/{os.path.relpath(candidate, SRC)}")
                            break
    return sorted(set(found))


def main():
    found = back_up_includes()
    if "--list" in sys.argv:
        print("\n".join(found))
        return 0
    listed = set()
    if os.path.isfile(EXCEPTIONS):
        with open(EXCEPTIONS, encoding="utf-8") as f:
            listed = {l.strip() for l in f if l.strip() and not l.startswith("#")}
    new = [x for x in found if x not in listed]
    gone = sorted(listed - set(found))
    for x in new:
        print(f"runs back up a layer (scripts/check-layers.py LAYERS): {x}")
    for x in gone:
        print(f"no longer there, take it off scripts/layer-exceptions.txt: {x}")
    print(f"includes that run back up a layer: {len(found)} ({len(listed)} listed as known)")
    return 1 if new or gone else 0


if __name__ == "__main__":
    sys.exit(main())
