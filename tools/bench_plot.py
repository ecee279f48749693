#!/usr/bin/env python3
"""Plot a `sparseperm bench --csv` file: compute seconds against n, one line per engine and thread count.

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
    series = defaultdict(list)
    with open(sys.argv[1], newline="") as f:
        for row in csv.DictReader(f):
            label = f"{row['engine']} p={row['density']}"
            if row.get("precision", "default") != "default":
                label += f" {row['precision']}"
            if row["engine"].startswith("cpu"):
                label += f" {row['threads']} thr"
            series[label].append((int(row["n"]), float(row["median_seconds"])))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for label, points in sorted(series.items()):
        points.sort()
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=label)
    ax.set_yscale("log")
    ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    ax.set_xlabel("n")
    ax.set_ylabel("compute seconds (median)")
    ax.set_title("sparseperm bench")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main())
