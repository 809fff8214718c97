#!/usr/bin/env python3
"""scripts/check-layers.py: the host's layering rule, checked from the sources (docs/architecture.md).

In: the tree (host/<layer>/, kernels/, benchmarks/). Out: one line per breach and exit status 1, or
a one-line summary and 0. The rules:
  1. a file includes only files of its own layer and of layers below it; the layers, bottom up:
     kernels (device-capable code: includes nothing of host/), base, model, field, step, io,
     analysis, cli (benchmarks/ counts as cli: the benchmarks' peers);
  2. no circle: modules (a .c file, its .h and its private NAME_internal.h) include each other along
     no cycle;
  3. every file of host/ has at most 800 lines and opens with a comment (what goes in, what comes out);
  4. every source file of host/ lies in a layer's folder.
Run by .ci/run (scripts/test.sh); `python3 scripts/check-layers.py --self-test` checks that each rule
fails on a tree that breaks it.
"""
import pathlib
import re
import shutil
import sys
import tempfile

LAYERS = ["kernels", "base", "model", "field", "step", "io", "analysis", "cli"]
MAX_LINES = 800
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SOURCE = (".c", ".h", ".cu")


def layer_of(rel):
    """path relative to the root -> layer name or None"""
    parts = rel.split("/")
    if parts[0] == "kernels":
        return "kernels"
    if parts[0] == "benchmarks":
        return "cli"
    if parts[0] == "host" and len(parts) == 3 and parts[1] in LAYERS:
        return parts[1]
    return None


def resolve(root, src, name):
    """the file an #include "name" of src names (its own folder, then host/, then the root), or None"""
    for base in (src.parent, root / "host", root):
        p = (base / name).resolve()
        if p.is_file():
            return p
    return None


def check(root):
    root = root.resolve()
    errors = []
    files = [p for d in ("host", "kernels", "benchmarks") for p in sorted((root / d).rglob("*"))
             if p.suffix in SOURCE and p.is_file()]
    module = {}  # file -> module (path without suffix)
    for p in files:
        rel = str(p.relative_to(root))
        if layer_of(rel) is None:
            errors.append("%s: not in a layer's folder (host/<%s>/)" % (rel, "|".join(LAYERS[1:])))
        mod = str(p.relative_to(root).with_suffix(""))
        module[p] = mod[:-len("_internal")] if mod.endswith("_internal") else mod
    edges = {}
    for p in files:
        rel = str(p.relative_to(root))
        text = p.read_text(errors="replace")
        if rel.startswith("host/"):
            n = text.count("\n")
            if n > MAX_LINES:
                errors.append("%s: %d lines (at most %d)" % (rel, n, MAX_LINES))
            if not text.lstrip().startswith("/*"):
                errors.append("%s:1: does not open with a comment saying what goes in and out" % rel)
        mine = layer_of(rel)
        for m in INCLUDE.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            q = resolve(root, p, m.group(1))
            if q is None or q not in module:
                continue  # a generated file, a test helper or a system header
            theirs = layer_of(str(q.relative_to(root)))
            if mine and theirs and LAYERS.index(theirs) > LAYERS.index(mine):
                errors.append("%s:%d: includes %s, a higher layer (%s above %s)"
                              % (rel, line, q.relative_to(root), theirs, mine))
            a, b = module[p], module[q]
            if a != b:
                edges.setdefault(a, set()).add(b)
    # cycles among modules: depth-first search, each cycle reported once by its smallest member
    state, stack, seen = {}, [], set()

    def visit(v):
        state[v] = 1
        stack.append(v)
        for w in sorted(edges.get(v, ())):
            if state.get(w) == 1:
                cyc = stack[stack.index(w):]
                k = cyc.index(min(cyc))
                cyc = tuple(cyc[k:] + cyc[:k])
                if cyc not in seen:
                    seen.add(cyc)
                    errors.append("circle: " + " -> ".join(cyc + (cyc[0],)))
            elif state.get(w) is None:
                visit(w)
        stack.pop()
        state[v] = 2

    for v in sorted(set(module.values())):
        if state.get(v) is None:
            visit(v)
    return errors, len(files), sum(len(e) for e in edges.values())


def self_test(root):
    """each rule fails on a copy of the tree that breaks it"""
    breaks = {
        "upward include": ("host/base/parse.c", '#include "step/sim.h"\n'),
        "circle": ("host/model/laws.c", '#include "model/timefn.h"\n'),
        "circle2": ("host/model/timefn.c", '#include "model/laws.h"\n'),
        "long file": ("host/base/parse.c", "\n" * (MAX_LINES + 1)),
    }
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        t = pathlib.Path(tmp)
        for d in ("host", "kernels", "benchmarks"):
            shutil.copytree(root / d, t / d)
        errs = check(t)[0]
        if errs:
            print("self-test: the tree itself fails:", errs[:3])
            return 1
        for name in ("upward include", "long file"):
            f, add = breaks[name]
            keep = (t / f).read_text()
            (t / f).write_text(keep + add)
            errs = check(t)[0]
            (t / f).write_text(keep)
            print("self-test %-15s %s" % (name, "caught" if errs else "MISSED"))
            ok &= bool(errs)
        keep = {f: (t / f).read_text() for f in ("host/model/laws.c", "host/model/timefn.c")}
        for name in ("circle", "circle2"):
            f, add = breaks[name]
            (t / f).write_text((t / f).read_text() + add)
        errs = check(t)[0]
        print("self-test %-15s %s" % ("circle", "caught" if any("circle" in e for e in errs) else "MISSED"))
        ok &= any("circle" in e for e in errs)
        for f, v in keep.items():
            (t / f).write_text(v)
        (t / "host" / "stray.c").write_text("/* x */\n")
        errs = check(t)[0]
        print("self-test %-15s %s" % ("outside layers", "caught" if errs else "MISSED"))
        ok &= bool(errs)
    return 0 if ok else 1


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    if "--self-test" in sys.argv:
        return self_test(root)
    errors, nfiles, nedges = check(root)
    for e in errors:
        print(e)
    if errors:
        print("check-layers: %d breaches (rules: scripts/check-layers.py)" % len(errors))
        return 1
    print("check-layers: %d files, %d module edges, every include down or level, no circle, no host file over %d lines"
          % (nfiles, nedges, MAX_LINES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
