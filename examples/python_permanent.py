"""sparseperm from Python: an exact count, a floating permanent with its bound, boson-sampling style
multiplicities, and a batch. Run as a test (label "example"); prints what it checks."""
import math
import os

import numpy as np

import sparseperm

# Domino tilings of the 8 x 6 board: the permanent of its 0/1 adjacency, exact, a Python int.
board = sparseperm.read_mtx(os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "domino_8x6.mtx"))
tilings = sparseperm.permanent(board)
print(f"domino tilings of 8 x 6: {tilings.value} ({tilings.engine}, exact={tilings.exact})")
assert tilings.value == 167089 and type(tilings.value) is int

# A random complex matrix: a value and a proven bound on its error.
rng = np.random.default_rng(7)
u = (rng.standard_normal((12, 12)) + 1j * rng.standard_normal((12, 12))) / math.sqrt(24)
amplitude = sparseperm.permanent(u)
print(f"perm(U) = {amplitude.value:.6g}, |error| <= {amplitude.error_bound:.2g} ({amplitude.engine})")
assert 0 < amplitude.error_bound < 1e-6  # a proven bound (Ryser sums cancel: it is not tight)

# Two photons in mode 0: row 0 repeated, the same as expanding the matrix.
twice = sparseperm.permanent(u[:6, :6], rows=[2, 1, 1, 1, 1, 0], cols=[1, 1, 1, 1, 1, 1])
expanded = sparseperm.permanent(np.repeat(u[:6, :6], [2, 1, 1, 1, 1, 0], axis=0))
print(f"with multiplicities: {twice.value:.6g}; expanded: {expanded.value:.6g}")
assert abs(twice.value - expanded.value) <= twice.error_bound + expanded.error_bound

# Many small matrices at once.
batch = sparseperm.permanents(rng.integers(0, 2, (1000, 8, 8)))
print(f"1000 random 0/1 8 x 8 matrices: mean permanent {np.mean([r.value for r in batch]):.2f}")
assert all(r.exact for r in batch)
