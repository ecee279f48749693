#!/usr/bin/env python3
"""Benchmarks of the Python package, printed as markdown tables (medians):

  call overhead   one small matrix a call, end to end from Python (4 x 4: real, integer, complex)
  batch           many random n x n complex matrices: permanents() against one call each
  gpu batch       where there is a GPU: permanents() on the CPU's threads (engine="cpu-sparse")
                  against a warp of the GPU per matrix (engine="gpu-sparse") and what "auto" chose,
                  n = 7 to 24: from which size the GPU pays
  dense           dense random real and complex matrices against thewalrus and Piquasso where
                  they are installed (same matrices, each library's own default)

python3 tools/bench_python.py [--sizes 20,22,24,26,28] [--batch 100000] [--repeats 3]
                              [--gpu-sizes 7,8,10,12,14,16,18,20,22,24]
"""
import argparse
import os
import re
import statistics
import sys
import time
import timeit

import numpy as np

import sparseperm


def median_seconds(f, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def call_overhead(repeats):
    rng = np.random.default_rng(1)
    cases = {"real": rng.random((4, 4)), "integer": rng.integers(0, 4, (4, 4)),
             "complex": rng.random((4, 4)) + 1j * rng.random((4, 4))}
    print("| 4 x 4 | µs a call (median of %d × 20000) | engine |" % repeats)
    print("|---|---:|---|")
    for name, a in cases.items():
        sparseperm.permanent(a)
        per_call = [t / 20000 for t in timeit.repeat(lambda: sparseperm.permanent(a), number=20000, repeat=repeats)]
        print(f"| {name} | {statistics.median(per_call) * 1e6:.1f} | {sparseperm.permanent(a).engine} |")


def batch(count, n, repeats, has_gpu):
    rng = np.random.default_rng(2)
    a = (rng.standard_normal((count, n, n)) + 1j * rng.standard_normal((count, n, n))) / np.sqrt(2 * n)
    engine = sparseperm.permanents(a)[0].engine  # and a warm-up (a GPU's context)
    together = median_seconds(lambda: sparseperm.permanents(a), repeats)
    few = min(count, 2000)
    alone = median_seconds(lambda: [sparseperm.permanent(m) for m in a[:few]], repeats) * count / few
    print(f"| {count} × {n} x {n} complex | seconds | µs a matrix |")
    print("|---|---:|---:|")
    print(f"| permanents(batch) ({engine}) | {together:.3f} | "
          f"{together / count * 1e6:.1f} |")
    if has_gpu:
        cpu = median_seconds(lambda: sparseperm.permanents(a, engine="cpu-sparse"), repeats)
        print(f"| permanents(batch, engine='cpu-sparse') | {cpu:.3f} | {cpu / count * 1e6:.1f} |")
    print(f"| permanent() each (timed on {few}) | {alone:.3f} | {alone / count * 1e6:.1f} |")
    try:
        import thewalrus
        thewalrus.perm(a[0])
        walrus = median_seconds(lambda: [thewalrus.perm(m) for m in a[:few]], repeats) * count / few
        print(f"| thewalrus.perm each (timed on {few}) | {walrus:.3f} | {walrus / count * 1e6:.1f} |")
    except ImportError:
        pass


def gpu_batch(sizes, count, repeats):
    """CPU threads against one GPU warp per matrix; fewer matrices at larger n (about 2^30 steps)."""
    print(f"| n | matrices | cpu-sparse s ({os.cpu_count()} threads) | gpu-sparse s | of which kernel s "
          "(CUDA events) | GPU speed-up | auto chose |")
    print("|---:|---:|---:|---:|---:|---:|---|")
    rng = np.random.default_rng(4)
    for n in sizes:
        k = max(64, min(count, (1 << 30) >> n))
        a = (rng.standard_normal((k, n, n)) + 1j * rng.standard_normal((k, n, n))) / np.sqrt(2 * n)
        sparseperm.permanents(a[:64], engine="gpu-sparse")  # the context, before timing
        cpu = median_seconds(lambda: sparseperm.permanents(a, engine="cpu-sparse"), repeats)
        gpu = median_seconds(lambda: sparseperm.permanents(a, engine="gpu-sparse"), repeats)
        kernel = re.search(r"the kernel (\S+) s", sparseperm.permanents(a, engine="gpu-sparse")[0].plan)
        auto = sparseperm.permanents(a)[0].engine
        print(f"| {n} | {k} | {cpu:.4f} | {gpu:.4f} | {kernel.group(1) if kernel else '?'} | {cpu / gpu:.1f} | "
              f"{auto} |", flush=True)


def dense(sizes, repeats):
    rivals = {}
    try:
        import thewalrus
        rivals["thewalrus"] = thewalrus.perm
    except ImportError:
        pass
    try:
        from piquasso._math.permanent import permanent as piquasso_permanent  # complex matrices

        def piquasso(m):
            ones = np.ones(len(m), dtype=np.int32)
            return piquasso_permanent(np.asarray(m, dtype=np.complex128), ones, ones)

        rivals["Piquasso"] = piquasso
    except Exception:
        pass
    names = list(rivals)
    print("| n | values | sparseperm s (engine) | " + " | ".join(f"{r} s" for r in names) + " |")
    print("|---:|---|---:|" + "---:|" * len(names))
    rng = np.random.default_rng(3)
    for n in sizes:
        for kind in ("real", "complex"):
            a = rng.random((n, n)) - 0.5
            if kind == "complex":
                a = a + 1j * (rng.random((n, n)) - 0.5)
            ours = median_seconds(lambda: sparseperm.permanent(a), repeats)
            row = f"| {n} | {kind} | {ours:.3f} ({sparseperm.permanent(a).engine}) |"
            for name in names:
                rivals[name](a[:4, :4])  # compile (numba) before timing
                row += f" {median_seconds(lambda: rivals[name](a), repeats):.3f} |"
            print(row, flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default="20,22,24,26,28")
    p.add_argument("--batch", type=int, default=100000)
    p.add_argument("--batch-n", type=int, default=10)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--gpu-sizes", default="7,8,10,12,14,16,18,20,22,24")
    p.add_argument("--only", choices=["overhead", "batch", "gpu", "dense"], help="one section")
    args = p.parse_args()
    print(f"sparseperm {sparseperm.__version__}, Python {sys.version.split()[0]}, numpy {np.__version__}\n")
    has_gpu = any(e.name == "gpu-sparse" and e.available for e in sparseperm.engines())
    sections = {
        "overhead": lambda: call_overhead(args.repeats),
        "batch": lambda: batch(args.batch, args.batch_n, args.repeats, has_gpu),
        "gpu": lambda: gpu_batch([int(s) for s in args.gpu_sizes.split(",") if s], args.batch, args.repeats)
        if has_gpu else print("(no CUDA device: no GPU batch)"),
        "dense": lambda: dense([int(s) for s in args.sizes.split(",") if s], args.repeats),
    }
    for name, run in sections.items():
        if args.only in (None, name):
            run()
            print()


if __name__ == "__main__":
    main()
