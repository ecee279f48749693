#!/usr/bin/env python3
"""Plot a `sparseperm bench --csv` file: compute seconds against n, one line per engine and thread count.
One colour per engine, one line style and marker per density (and precision, thread count), so that
engines stay apart however many series there are.

usage: bench_plot.py BENCH.csv OUT.png
"""
import csv
import sys
from collections import defaultdict


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        print("bench_plot.py: matplotlib is not installed", file=sys.stderr)
        return 1
    series = defaultdict(list)  # (engine, variant) -> [(n, seconds)]
    with open(sys.argv[1], newline="") as f:
        for row in csv.DictReader(f):
            variant = f"p={row['density']}"
            if row.get("precision", "default") != "default":
                variant += f" {row['precision']}"
            if row["engine"].startswith("cpu"):
                variant += f" {row['threads']} thr"
            series[(row["engine"], variant)].append((int(row["n"]), float(row["median_seconds"])))
    engines = sorted({engine for engine, _ in series})
    variants = sorted({variant for _, variant in series})
    colours = plt.get_cmap("tab10")
    styles = ["-", "--", ":", "-."]
    markers = ["o", "s", "^", "D", "v", "P"]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for (engine, variant), points in sorted(series.items()):
        points.sort()
        e, v = engines.index(engine), variants.index(variant)
        ax.plot([p[0] for p in points], [p[1] for p in points], color=colours(e % 10), linestyle=styles[v % len(styles)],
                marker=markers[v % len(markers)], label=f"{engine} {variant}")
    ax.set_yscale("log")
    ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    ax.set_xlabel("n")
    ax.set_ylabel("compute seconds (median)")
    ax.set_title("sparseperm bench")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main())
