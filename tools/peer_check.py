#!/usr/bin/env python3
"""Cross-checks sparseperm's permanents against a peer: thewalrus (pip install thewalrus) or
Piquasso (pip install piquasso).

usage: tools/peer_check.py SPARSEPERM [--peer thewalrus] [--sizes 2-20] [--per-size 3] [--seed 1]
                           [--engine auto] [--density 1] [--repeated] [--twice K]
                           [--values complex|real] [--warm ENGINE]

Random complex matrices (parts uniform in [-1, 1)), or real ones with --values real, of every size in the range are written as
Matrix Market files and computed by `SPARSEPERM compute --json`; the peer computes them too
(thewalrus.perm, or Piquasso's permanent(matrix, rows, columns)). A pair agrees when
|sparseperm - peer| <= sparseperm's error bound + 1e-12 |peer| (neither peer gives a bound: the
slack covers its rounding). With --repeated the rows and columns get random multiplicities
(--row-multiplicities / --column-multiplicities); with --twice every row and column is taken twice
(two photons in each mode). thewalrus gets the expanded matrix; Piquasso takes the multiplicities
itself. --density below 1 keeps each entry with that probability (sparse matrices, a full
diagonal). Prints one line per matrix with both times (sparseperm's compute seconds; the peer's
wall seconds) and a summary; exit code 1 when any pair disagrees. With --warm ENGINE sparseperm
computes each matrix once with ENGINE before the timed run (cpu-cached: its module is then in the
cache, where `auto` finds it) and the line shows its total seconds too; the peer is called once on a
small matrix first (thewalrus compiles its code on the first call).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np


def write_matrix_market(path, a):
    n = a.shape[0]
    with open(path, "w") as f:
        f.write(f"%%MatrixMarket matrix array {'complex' if np.iscomplexobj(a) else 'real'} general\n")
        f.write(f"{n} {n}\n")
        for j in range(n):
            for i in range(n):
                if np.iscomplexobj(a):
                    f.write(f"{float(a[i, j].real)!r} {float(a[i, j].imag)!r}\n")
                else:
                    f.write(f"{float(a[i, j])!r}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sparseperm")
    parser.add_argument("--sizes", default="2-20")
    parser.add_argument("--per-size", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--engine", default="auto")
    parser.add_argument("--density", type=float, default=1.0)
    parser.add_argument("--repeated", action="store_true")
    parser.add_argument("--twice", action="store_true")
    parser.add_argument("--peer", choices=["thewalrus", "piquasso"], default="thewalrus")
    parser.add_argument("--values", choices=["complex", "real"], default="complex")
    parser.add_argument("--warm", metavar="ENGINE")
    args = parser.parse_args()
    if args.peer == "thewalrus":
        try:
            from thewalrus import perm
        except ImportError:
            sys.exit("thewalrus is not installed (pip install thewalrus)")

        def peer(a, rows, columns):
            return complex(perm(np.repeat(np.repeat(a, rows, axis=0), columns, axis=1)))
    else:
        try:
            from piquasso._math.permanent import permanent
        except ImportError:
            sys.exit("piquasso is not installed (pip install piquasso)")

        def peer(a, rows, columns):
            return complex(permanent(np.ascontiguousarray(a), rows.astype(np.int64), columns.astype(np.int64)))
    if args.warm:
        peer(np.eye(4, dtype=complex if args.values == "complex" else float), np.ones(4, dtype=int),
             np.ones(4, dtype=int))
    low, high = (int(v) for v in args.sizes.split("-"))
    rng = np.random.default_rng(args.seed)
    failures = checked = 0
    with tempfile.TemporaryDirectory() as work:
        for n in range(low, high + 1):
            for trial in range(args.per_size):
                a = rng.uniform(-1, 1, (n, n)) + 1j * rng.uniform(-1, 1, (n, n))
                if args.values == "real":
                    a = a.real.copy()
                if args.density < 1:
                    a *= rng.uniform(0, 1, (n, n)) < args.density
                    np.fill_diagonal(a, np.where(np.diag(a) == 0, 1 + 0j, np.diag(a)))  # a perfect matching
                path = os.path.join(work, f"m{n}_{trial}.mtx")
                write_matrix_market(path, a)
                command = [args.sparseperm, "compute", path, "--json", "--engine", args.engine]
                rows = columns = np.ones(n, dtype=int)
                if args.repeated:
                    rows = rng.integers(1, 3, n)
                    columns = np.ones(n, dtype=int)
                    for _ in range(int(rows.sum()) - n):
                        columns[rng.integers(0, n)] += 1
                    if rows.sum() > 20 and args.peer == "thewalrus":
                        continue
                elif args.twice:
                    rows = columns = np.full(n, 2)
                if args.repeated or args.twice:
                    command += ["--row-multiplicities", ",".join(map(str, rows)),
                                "--column-multiplicities", ",".join(map(str, columns))]
                if args.warm:
                    warm = command[:command.index("--engine") + 1] + [args.warm] + command[command.index("--engine") + 2:]
                    subprocess.run(warm, capture_output=True, text=True)
                out = subprocess.run(command, capture_output=True, text=True)
                if out.returncode != 0:
                    print(f"n={n}: sparseperm failed: {out.stderr.strip()}")
                    failures += 1
                    continue
                record = json.loads(out.stdout)
                if "real_value" in record:
                    ours = complex(record["real_value"], record["imag_value"])
                else:
                    ours = complex(record["value"] if record["value"] is not None else float(record["permanent"]))
                began = time.perf_counter()
                theirs = peer(a, rows, columns)
                their_seconds = time.perf_counter() - began
                bound = record["error_bound"] or 0.0
                distance = abs(ours - theirs)
                ok = distance <= bound + 1e-12 * abs(theirs)
                checked += 1
                failures += not ok
                print(f"N={int(rows.sum()):2d} {record['engine']:<12} |diff| {distance:9.2e}  bound {bound:9.2e}  "
                      f"{'ok' if ok else 'DISAGREES'}  sparseperm {record['seconds']['compute']:.4f} s"
                      + (f" (total {record['seconds']['total']:.4f} s)  " if args.warm else "  ")
                      + f"{args.peer} {their_seconds:.4f} s")
    print(f"{checked} matrices, {failures} disagreements")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
