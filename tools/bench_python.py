#!/usr/bin/env python3
"""Benchmarks of the Python package, printed as markdown tables (medians):

  call overhead   one small matrix a call, end to end from Python, the library's share of it, and
                  thewalrus.perm's call (4 x 4 and 8 x 8: real, int64, complex)
  batch           many random n x n real and complex matrices: permanents() (default and
                  precision="double", with the median certified digits of each) against each
                  peer's loop (thewalrus's numba kernel in a prange loop, Piquasso, qc-permanent),
                  one thread and every thread
  gpu batch       where there is a GPU: permanents() on the CPU's threads (engine="cpu-sparse")
                  against a warp of the GPU per matrix (engine="gpu-sparse") and what "auto" chose,
                  n = 7 to 24: from which size the GPU pays
  dense           dense random real and complex matrices against thewalrus and Piquasso where
                  they are installed (same matrices, each library's own default)

python3 tools/bench_python.py [--sizes 20,22,24,26,28] [--batch-sizes 8,10,12,16,20] [--repeats 3]
                              [--batch 100000] [--gpu-sizes 7,8,10,12,14,16,18,20,22,24]
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
    """One small matrix a call: the wall time of a call, the library's own time within it
    (Result.seconds, read from other calls), their difference (the door: Python, the bindings, the
    result), and thewalrus.perm's call where installed. Every case runs in every round (a slow phase
    of a shared machine hits all alike); medians over the rounds of 20000 calls."""
    try:
        import thewalrus
    except ImportError:
        thewalrus = None
    rng = np.random.default_rng(1)
    cases = {}
    for n in (4, 8):
        real = rng.random((n, n))
        cases[f"{n} x {n} real"] = real
        cases[f"{n} x {n} int64"] = rng.integers(0, 4, (n, n))
        cases[f"{n} x {n} complex"] = real + 1j * rng.random((n, n))
    calls = 20000
    rounds = {name: [] for name in cases}
    for _ in range(repeats):
        for name, a in cases.items():
            sparseperm.permanent(a)
            start = time.perf_counter()
            for _ in range(calls):
                sparseperm.permanent(a)
            wall = time.perf_counter() - start
            # the library's share from other calls: reading .seconds makes the rest of a Result
            inside = sum(sparseperm.permanent(a).seconds for _ in range(calls // 10)) * 10
            walrus = float("nan")
            if thewalrus is not None:
                thewalrus.perm(a)
                walrus = timeit.timeit(lambda: thewalrus.perm(a), number=calls) / calls
            rounds[name].append((wall / calls, inside / calls, walrus))
    print(f"| matrix | µs a call (median of {repeats} × {calls}) | library µs | door µs | thewalrus.perm µs | engine |")
    print("|---|---:|---:|---:|---:|---|")
    for name, a in cases.items():
        call, inside, walrus = (statistics.median(r[k] for r in rounds[name]) * 1e6 for k in range(3))
        print(f"| {name} | {call:.2f} | {inside:.2f} | {call - inside:.2f} | {walrus:.2f} | "
              f"{sparseperm.permanent(a).engine} |")


def batch_rivals(threads):
    """Each peer's fastest way to many small permanents, as a user would write it: thewalrus's numba
    kernel (perm_bbfg, its default) in a numba prange loop, Piquasso's and qc-permanent's C++ calls
    in a Python loop (one core: they have no batch call)."""
    rivals = {}
    try:
        import numba
        from thewalrus._permanent import perm_bbfg

        @numba.njit(parallel=True)
        def walrus_loop(a, out):
            for k in numba.prange(a.shape[0]):
                out[k] = perm_bbfg(a[k])
            return out

        numba.set_num_threads(threads)
        rivals["thewalrus (numba prange)"] = lambda a: walrus_loop(a, np.zeros(len(a), dtype=a.dtype))
    except ImportError:
        pass
    if threads == 1:
        try:
            from piquasso._math.permanent import permanent as piquasso_permanent

            def piquasso(a):
                ones = np.ones(a.shape[1], dtype=np.int32)
                return [piquasso_permanent(np.asarray(m, dtype=np.complex128), ones, ones) for m in a]

            rivals["Piquasso"] = piquasso
        except Exception:
            pass
        try:
            import permanent as qc_permanent  # qc-permanent

            rivals["qc-permanent"] = lambda a: [qc_permanent.opt(m) for m in a]
        except ImportError:
            pass
    return rivals


def batch(sizes, threads_list, repeats):
    """permanents() against each peer's loop, µs a matrix (median), the same random matrices; the
    results are checked against the first peer's."""
    for threads in threads_list:
        rivals = batch_rivals(threads)
        names = list(rivals)
        print(f"{threads} thread(s): µs a matrix (median of {repeats})\n")
        last = " best peer / sparseperm | best peer / double |" if names else ""
        print("| n | values | matrices | sparseperm | digits | precision double | digits |" +
              "".join(f" {r} |" for r in names) + last)
        print("|---:|---|---:|---:|---:|---:|---:|" + "---:|" * len(names) + ("---:|---:|" if names else ""))
        rng = np.random.default_rng(2)
        for n in sizes:
            count = max(16, min(20000, (10 << 20) >> n))
            for kind in ("complex", "real"):
                a = rng.standard_normal((count, n, n)) / np.sqrt(n)
                if kind == "complex":
                    a = (a + 1j * rng.standard_normal((count, n, n)) / np.sqrt(n)) / np.sqrt(2)
                ours = median_seconds(lambda: sparseperm.permanents(a, threads=threads), repeats) / count
                fast = median_seconds(lambda: sparseperm.permanents(a, threads=threads, precision="double"),
                                      repeats) / count
                values = sparseperm.permanents(a[:16], threads=threads)
                fast_digits = [r.trusted_digits or 0 for r in
                               sparseperm.permanents(a[:16], threads=threads, precision="double")]
                row = (f"| {n} | {kind} | {count} | {ours * 1e6:.2f} | "
                       f"{int(np.median([r.trusted_digits or 0 for r in values]))} | {fast * 1e6:.2f} | "
                       f"{int(np.median(fast_digits))} |")
                best = float("inf")
                for name in names:
                    few = a if "numba" in name else a[: max(16, count // 8)]
                    check = rivals[name](a[:16])
                    assert np.allclose(values.values, np.asarray(check), rtol=1e-8, atol=1e-12), name
                    t = median_seconds(lambda: rivals[name](few), repeats) / len(few)
                    best = min(best, t)
                    row += f" {t * 1e6:.2f} |"
                print(row + (f" {best / ours:.1f} | {best / fast:.1f} |" if names else ""), flush=True)
        print()


def gpu_batch(sizes, count, repeats):
    """CPU threads against one GPU warp per matrix, and auto (which may give each matrix the whole GPU:
    gpu-dense); fewer matrices at larger n (about 2^30 steps, at least 64). Beyond n = 24 (no warp
    route) and 26 (the CPU's lanes take seconds a matrix) auto alone."""
    print(f"| n | matrices | cpu-sparse s ({os.cpu_count()} threads) | gpu-sparse s (a warp each) | of which kernel s "
          "(CUDA events) | auto s | auto ran | best of the two / auto |")
    print("|---:|---:|---:|---:|---:|---:|---|---:|")
    rng = np.random.default_rng(4)
    for n in sizes:
        k = max(64, min(count, (1 << 30) >> n))
        a = (rng.standard_normal((k, n, n)) + 1j * rng.standard_normal((k, n, n))) / np.sqrt(2 * n)
        sparseperm.permanents(a[:64], engine="gpu-sparse" if n <= 24 else "auto")  # the context, before timing
        cpu = median_seconds(lambda: sparseperm.permanents(a, engine="cpu-sparse"), repeats) if n <= 26 else None
        gpu = kernel = None
        if n <= 24:
            gpu = median_seconds(lambda: sparseperm.permanents(a, engine="gpu-sparse"), repeats)
            kernel = re.search(r"the kernel (\S+) s", sparseperm.permanents(a, engine="gpu-sparse")[0].plan)
        auto = median_seconds(lambda: sparseperm.permanents(a), repeats)
        engines = sorted({r.engine for r in sparseperm.permanents(a)})
        best = min(t for t in (cpu, gpu) if t is not None) if cpu or gpu else None
        print(f"| {n} | {k} | {f'{cpu:.4f}' if cpu else '-'} | {f'{gpu:.4f}' if gpu else '-'} | "
              f"{kernel.group(1) if kernel else '-'} | {auto:.4f} | {', '.join(engines)} | "
              f"{f'{best / auto:.1f}' if best else '-'} |", flush=True)


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
    p.add_argument("--batch-sizes", default="8,10,12,16,20")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--gpu-sizes", default="7,8,10,12,14,16,18,20,22,24")
    p.add_argument("--only", choices=["overhead", "batch", "gpu", "dense"], help="one section")
    args = p.parse_args()
    print(f"sparseperm {sparseperm.__version__}, Python {sys.version.split()[0]}, numpy {np.__version__}\n")
    has_gpu = any(e.name == "gpu-sparse" and e.available for e in sparseperm.engines())
    sections = {
        "overhead": lambda: call_overhead(args.repeats),
        "batch": lambda: batch([int(s) for s in args.batch_sizes.split(",") if s],
                               sorted({1, os.cpu_count() or 1}), args.repeats),
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
