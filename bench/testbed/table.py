#!/usr/bin/env python3
"""The tables of bench/testbed/run.sh's results (markdown, on stdout).

    bench/testbed/table.py [DIR]     (default bench/testbed/results)
    bench/testbed/table.py DIR --against OTHER

With --against: per cell both directories hold, collc's drop-in over the
fastest Open MPI algorithm (and over the default) in DIR and in OTHER, e.g.
a run with `run.sh --piece` against one without.

Per configuration (topology, nodes): collc's drop-in against Open MPI's
default and the fastest of its forced coll/tuned algorithms, medians of the
same launch, and the targets of issue 25 (no slower than the fastest from
64 KiB, within 1.2x below; at most 0.7x the default from 1 MiB on the
tree); then the generated code's measured makespan against the evaluator's
prediction.
"""

import glob
import os
import re
import sys


def size_text(b):
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= scale and b % scale == 0:
            return f"{b // scale} {unit}"
    return f"{b} B"


def us(x):
    return f"{x:,.0f}" if x >= 100 else f"{x:.1f}"


def read_cells(path):
    """{(coll, bytes): {variant: (median, min, max, runs) or ('pruned', warmup)}}"""
    cells = {}
    for line in open(path):
        f = line.split()
        if not f or f[0] not in ("cell", "pruned"):
            continue
        key = (f[1], int(f[3]))
        if f[0] == "cell":
            cells.setdefault(key, {})[f[4]] = (float(f[5]), float(f[6]), float(f[7]), int(f[8]))
        else:
            cells.setdefault(key, {})[f[4]] = ("pruned", float(f[5]))
    return cells


def read_algorithms(path, n):
    """collc's choice per (coll, bytes per rank) from COLLC_VERBOSE lines."""
    algs = {}
    if not os.path.exists(path):
        return algs
    pat = re.compile(r"^collc: (\w+) '([^']+)' on (\d+) ranks, (\d+) bytes")
    for line in open(path):
        m = pat.match(line)
        if not m:
            continue
        coll, alg, b = m.group(1), m.group(2), int(m.group(4))
        if coll in ("allgather", "alltoall"):
            b *= n
        algs[(coll, b)] = alg
    return algs


def read_predicted(path):
    pred = {}
    if os.path.exists(path):
        for line in open(path):
            coll, b, alg, makespan = line.split()
            pred[(coll, int(b))] = (alg, float(makespan))
    return pred


def configuration_table(d, tag):
    topo, n = tag.rsplit("-", 1)
    n = int(n)
    cells = read_cells(os.path.join(d, f"cells-{tag}.txt"))
    algs = read_algorithms(os.path.join(d, f"algorithms-{tag}.txt"), n)
    pred = read_predicted(os.path.join(d, f"predicted-{tag}.txt"))
    out = [f"### {topo}, {n} nodes", "",
           "| collective | bytes | collc drop-in µs (algorithm) | Open MPI default µs | "
           "fastest Open MPI µs (algorithm) | collc / default | collc / fastest |",
           "|---|---:|---|---:|---|---:|---:|"]
    targets = {"fastest64k": [0, 0], "below": [0, 0], "tree1m": [0, 0]}
    order = ["bcast", "allreduce", "allgather", "alltoall"]
    for coll, b in sorted(cells, key=lambda k: (order.index(k[0]) if k[0] in order else 9, k[1])):
        v = cells[(coll, b)]
        if "collc" not in v or v["collc"][0] == "pruned":
            continue
        c = v["collc"][0]
        lib = {k: x[0] for k, x in v.items() if k.startswith("ompi:") and x[0] != "pruned"}
        if not lib:
            continue
        best = min(lib, key=lib.get)
        default = lib.get("ompi:default")
        out.append(f"| {coll} | {size_text(b)} | {us(c)} ({algs.get((coll, b), '?')}) | "
                   f"{us(default) if default else '-'} | {us(lib[best])} ({best[5:]}) | "
                   f"{f'{c / default:.2f}' if default else '-'} | {c / lib[best]:.2f} |")
        r = c / lib[best]
        if b >= 65536:
            targets["fastest64k"][1] += 1
            targets["fastest64k"][0] += r <= 1.0
        else:
            targets["below"][1] += 1
            targets["below"][0] += r <= 1.2
        if topo == "tree" and b >= 1 << 20 and default:
            targets["tree1m"][1] += 1
            targets["tree1m"][0] += c / default <= 0.7
    out.append("")
    t = targets
    out.append(f"Targets: no slower than the fastest Open MPI algorithm from 64 KiB: "
               f"{t['fastest64k'][0]} of {t['fastest64k'][1]} cells; within 1.2x below 64 KiB: "
               f"{t['below'][0]} of {t['below'][1]}"
               + (f"; at most 0.7x the default from 1 MiB: {t['tree1m'][0]} of {t['tree1m'][1]}"
                  if topo == "tree" else "") + ".")
    gen = [(k, v["generated"]) for k, v in cells.items()
           if "generated" in v and v["generated"][0] != "pruned"]
    if gen:
        out += ["", f"Generated code (`collc --emit mpi`, `auto` at each size) on {topo}, {n} nodes: "
                "measured makespan against the evaluator's prediction", "",
                "| collective | bytes | algorithm | predicted µs | measured µs | measured / predicted |",
                "|---|---:|---|---:|---:|---:|"]
        for (coll, b), m in sorted(gen, key=lambda x: (order.index(x[0][0]) if x[0][0] in order else 9,
                                                       x[0][1])):
            alg, p = pred.get((coll, b), ("?", 0))
            out.append(f"| {coll} | {size_text(b)} | {alg} | {us(p) if p else '-'} | "
                       f"{us(m[0])} | {f'{m[0] / p:.2f}' if p else '-'} |")
    return "\n".join(out)


def collc_ratios(d, tag):
    """{(coll, bytes): (collc / fastest, collc / default)} of one configuration."""
    out = {}
    for key, v in read_cells(os.path.join(d, f"cells-{tag}.txt")).items():
        lib = {k: x[0] for k, x in v.items() if k.startswith("ompi:") and x[0] != "pruned"}
        if "collc" not in v or v["collc"][0] == "pruned" or "ompi:default" not in lib:
            continue
        c = v["collc"][0]
        out[key] = (c / min(lib.values()), c / lib["ompi:default"])
    return out


def comparison_table(d, other, tags):
    order = ["bcast", "allreduce", "allgather", "alltoall"]
    head = "| collective | bytes | " + " | ".join(
        f"{t}: {os.path.basename(os.path.normpath(x))}" for t in tags for x in (d, other)) + " |"
    out = ["collc / fastest Open MPI algorithm (collc / Open MPI default)", "", head,
           "|---|---:|" + "---:|" * (2 * len(tags))]
    mine = {t: collc_ratios(d, t) for t in tags}
    theirs = {t: collc_ratios(other, t) for t in tags}
    keys = set().union(*(set(mine[t]) & set(theirs[t]) for t in tags))
    for coll, b in sorted(keys, key=lambda k: (order.index(k[0]) if k[0] in order else 9, k[1])):
        row = []
        for t in tags:
            for r in (mine[t].get((coll, b)), theirs[t].get((coll, b))):
                row.append(f"{r[0]:.2f} ({r[1]:.2f})" if r else "-")
        out.append(f"| {coll} | {size_text(b)} | " + " | ".join(row) + " |")
    return "\n".join(out)


def main(argv):
    args = argv[1:]
    other = None
    if "--against" in args:
        i = args.index("--against")
        if i + 1 >= len(args):
            print("table.py: --against needs a directory", file=sys.stderr)
            return 1
        other = args[i + 1]
        del args[i:i + 2]
    d = args[0] if args else os.path.join(os.path.dirname(__file__), "results")
    tags = sorted(os.path.basename(p)[6:-4] for p in glob.glob(os.path.join(d, "cells-*.txt")))
    if not tags:
        print(f"table.py: no cells-*.txt in {d}", file=sys.stderr)
        return 1
    if other is not None:
        tags = [t for t in tags if os.path.exists(os.path.join(other, f"cells-{t}.txt"))]
        if not tags:
            print(f"table.py: no configuration in both {d} and {other}", file=sys.stderr)
            return 1
        print(comparison_table(d, other, tags))
        return 0
    print("\n\n".join(configuration_table(d, t) for t in tags))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
