#!/usr/bin/env python3
"""Cross-checks sparseperm's complex permanents against thewalrus (pip install thewalrus).

usage: tools/thewalrus_check.py SPARSEPERM [--sizes 2-20] [--per-size 3] [--seed 1] [--engine auto]
                                [--density 1] [--repeated]

Random dense complex matrices (parts uniform in [-1, 1)) of every size in the range are written as
Matrix Market files and computed by `SPARSEPERM compute --json`; thewalrus.perm computes them too.
A pair agrees when |sparseperm - thewalrus| <= sparseperm's error bound + 1e-12 |thewalrus|
(thewalrus gives no bound of its own: the slack covers its rounding). With --repeated the rows and
columns get multiplicities (--row-multiplicities / --column-multiplicities), so the glynn engine
is checked against thewalrus's permanent of the repeated matrix (thewalrus.perm of the expanded
matrix). --density below 1 keeps each entry with that probability (sparse matrices). Prints one
line per matrix with both times (sparseperm's compute seconds; thewalrus's wall seconds of
thewalrus.perm) and a summary; exit code 1 when any pair disagrees.
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
        f.write("%%MatrixMarket matrix array complex general\n")
        f.write(f"{n} {n}\n")
        for j in range(n):
            for i in range(n):
                f.write(f"{float(a[i, j].real)!r} {float(a[i, j].imag)!r}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sparseperm")
    parser.add_argument("--sizes", default="2-20")
    parser.add_argument("--per-size", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--engine", default="auto")
    parser.add_argument("--density", type=float, default=1.0)
    parser.add_argument("--repeated", action="store_true")
    args = parser.parse_args()
    try:
        from thewalrus import perm
    except ImportError:
        sys.exit("thewalrus is not installed (pip install thewalrus)")
    low, high = (int(v) for v in args.sizes.split("-"))
    rng = np.random.default_rng(args.seed)
    failures = checked = 0
    with tempfile.TemporaryDirectory() as work:
        for n in range(low, high + 1):
            for trial in range(args.per_size):
                a = rng.uniform(-1, 1, (n, n)) + 1j * rng.uniform(-1, 1, (n, n))
                if args.density < 1:
                    a *= rng.uniform(0, 1, (n, n)) < args.density
                    np.fill_diagonal(a, np.where(np.diag(a) == 0, 1 + 0j, np.diag(a)))  # a perfect matching
                path = os.path.join(work, f"m{n}_{trial}.mtx")
                write_matrix_market(path, a)
                command = [args.sparseperm, "compute", path, "--json", "--engine", args.engine]
                expanded = a
                if args.repeated:
                    rows = rng.integers(1, 3, n)
                    columns = np.ones(n, dtype=int)
                    for _ in range(int(rows.sum()) - n):
                        columns[rng.integers(0, n)] += 1
                    if rows.sum() > 20:
                        continue
                    command += ["--row-multiplicities", ",".join(map(str, rows)),
                                "--column-multiplicities", ",".join(map(str, columns))]
                    expanded = np.repeat(np.repeat(a, rows, axis=0), columns, axis=1)
                out = subprocess.run(command, capture_output=True, text=True)
                if out.returncode != 0:
                    print(f"n={n}: sparseperm failed: {out.stderr.strip()}")
                    failures += 1
                    continue
                record = json.loads(out.stdout)
                ours = complex(record["real_value"], record["imag_value"])
                began = time.perf_counter()
                theirs = complex(perm(expanded))
                their_seconds = time.perf_counter() - began
                bound = record["error_bound"] or 0.0
                distance = abs(ours - theirs)
                ok = distance <= bound + 1e-12 * abs(theirs)
                checked += 1
                failures += not ok
                print(f"N={expanded.shape[0]:2d} {record['engine']:<12} |diff| {distance:9.2e}  bound {bound:9.2e}  "
                      f"{'ok' if ok else 'DISAGREES'}  sparseperm {record['seconds']['compute']:.4f} s  "
                      f"thewalrus {their_seconds:.4f} s")
    print(f"{checked} matrices, {failures} disagreements")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
