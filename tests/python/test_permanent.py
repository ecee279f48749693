"""The Python package against independent results: the CLI's exact integers, brute force, thewalrus,
its own one-by-one calls; every input kind; bad inputs; Ctrl-C."""
import decimal
import fractions
import itertools
import json
import math
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
import scipy.sparse

import sparseperm

CLI = os.environ.get("SPARSEPERM_CLI", "")
SHARED = os.environ.get("SPARSEPERM_SHARED_MATRICES", "")
EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "data")
HAS_GPU = any(e.name == "gpu-sparse" and e.available for e in sparseperm.engines())


def brute_force(a):
    n = len(a)
    total = 0
    for s in itertools.permutations(range(n)):
        p = 1
        for i in range(n):
            p *= a[i][s[i]]
        total += p
    return total


def random_matrix(rng, n, density, values="ones"):
    mask = rng.random((n, n)) < density
    if values == "ones":
        a = mask.astype(np.int64)
    elif values == "int":
        a = mask * rng.integers(-3, 4, (n, n))
    elif values == "real":
        a = mask * rng.random((n, n))
    else:
        a = mask * (rng.random((n, n)) + 1j * rng.random((n, n)))
    return a


def write_mtx(path, a):
    n = a.shape[0]
    rows, cols = np.nonzero(a)
    with open(path, "w") as f:
        f.write("%%MatrixMarket matrix coordinate integer general\n")
        f.write(f"{n} {n} {len(rows)}\n")
        for i, j in zip(rows, cols):
            f.write(f"{i + 1} {j + 1} {int(a[i, j])}\n")


def test_small_matrices_against_brute_force():
    rng = np.random.default_rng(1)
    for trial in range(60):
        n = int(rng.integers(1, 8))
        a = random_matrix(rng, n, 0.6, "int" if trial % 2 else "ones")
        r = sparseperm.permanent(a)
        assert r.exact and type(r.value) is int
        assert r.value == brute_force(a.tolist()), (a, r)


@pytest.mark.skipif(not CLI, reason="SPARSEPERM_CLI names the command-line tool")
def test_exact_integers_equal_the_cli(tmp_path):
    rng = np.random.default_rng(2)
    for trial in range(12):
        n = int(rng.integers(8, 22))
        a = random_matrix(rng, n, 0.4, "int" if trial % 3 == 0 else "ones")
        path = tmp_path / f"m{trial}.mtx"
        write_mtx(path, a)
        out = subprocess.run([CLI, "compute", str(path), "--json"], capture_output=True, text=True, check=True)
        cli = json.loads(out.stdout)
        for engine in ("auto", "dp", "cpu-sparse"):
            r = sparseperm.permanent(a, engine=engine)
            assert r.exact and type(r.value) is int
            assert str(r.value) == cli["permanent"], (engine, r, cli)


def test_huge_exact_counts_are_python_ints():
    # 24 x 24 all ones: 24! is beyond 2^64 and far beyond a double's 53 bits
    r = sparseperm.permanent(np.ones((24, 24), dtype=np.int8))
    assert r.value == math.factorial(24) and type(r.value) is int and r.exact


def test_small_exact_counts_are_ints_with_exact_parts():
    # within 64 bits the int comes straight from the extension (8 x 8 with zeros: the lanes, from the
    # array); the same number, parts and types as the text's way (a list of lists: coordinates)
    rng = np.random.default_rng(7)
    for k in range(20):
        a = rng.integers(-3, 4, (8, 8))
        r = sparseperm.permanent(a)
        s = sparseperm.permanent(a.tolist(), engine="cpu-sparse")
        assert r.exact and type(r.value) is int and r.value == s.value == int(r) == r.real
        assert r.imag == 0 and type(r.imag) is int and r.mantissa == r.value
    for v in (-(2**63), 2**63):  # the edge of 64 bits, and beyond it through the text
        r = sparseperm.permanent(np.array([[np.sign(v) * 2**40, 0], [0, 2**23]]))
        assert r.value == v and type(r.value) is int and r.exact


@pytest.mark.parametrize("kind", ["real", "complex"])
@pytest.mark.parametrize("n", [3, 8, 13, 20])
def test_dense_against_thewalrus(kind, n):
    thewalrus = pytest.importorskip("thewalrus")
    rng = np.random.default_rng(n)
    a = rng.random((n, n)) - 0.5
    if kind == "complex":
        a = a + 1j * (rng.random((n, n)) - 0.5)
    expected = thewalrus.perm(a)
    r = sparseperm.permanent(a)
    assert not r.exact and r.error_bound is not None
    # thewalrus rounds too: allow its own error, of the order of the terms' size
    scale = np.prod(np.abs(a).sum(axis=1))
    assert abs(r.value - expected) <= r.error_bound + 1e-12 * scale, (r, expected)
    assert isinstance(r.value, complex if kind == "complex" else float)


def test_scipy_sparse_formats_and_duplicates():
    rng = np.random.default_rng(3)
    a = random_matrix(rng, 12, 0.35, "real")
    expected = sparseperm.permanent(a).value
    for fmt in ("csr", "csc", "coo", "lil", "dok", "bsr"):
        for matrix in (scipy.sparse.coo_array(a).asformat(fmt), scipy.sparse.coo_matrix(a).asformat(fmt)):
            assert sparseperm.permanent(matrix).value == expected, fmt
    # coordinates given twice are summed, as scipy means them
    rows, cols = np.nonzero(a)
    twice = scipy.sparse.coo_array((np.concatenate([a[rows, cols] / 2] * 2), (np.concatenate([rows, rows]),
                                                                                np.concatenate([cols, cols]))),
                                   shape=a.shape)
    assert sparseperm.permanent(twice).value == pytest.approx(expected, rel=1e-12)


def test_nested_lists_and_dtypes():
    assert sparseperm.permanent([[1, 2], [3, 4]]).value == 10
    assert sparseperm.permanent([[1.5, 2], [3, 4]]).value == pytest.approx(12.0)
    assert sparseperm.permanent(np.array([[True, True], [True, False]])).value == 1
    r = sparseperm.permanent([[1 + 1j, 2], [3, 4j]])
    assert r.exact and (r.real, r.imag) == (2, 4)
    assert sparseperm.permanent([]).value == 1
    assert sparseperm.permanent(np.zeros((3, 3))).value == 0


def test_multiplicities_against_expansion():
    rng = np.random.default_rng(4)
    for kind in ("ones", "int", "real", "complex"):
        a = random_matrix(rng, 6, 0.8, kind)
        rows = [2, 0, 1, 3, 1, 1]
        cols = [1, 2, 2, 1, 1, 1]
        expanded = np.repeat(np.repeat(a, rows, axis=0), cols, axis=1)
        r = sparseperm.permanent(a, rows=rows, cols=cols)
        e = sparseperm.permanent(expanded)
        if r.exact:
            assert r.value == e.value
        else:
            assert abs(r.value - e.value) <= r.error_bound + e.error_bound


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint64, np.int8])
def test_integer_arrays_are_exact_and_refused_beyond_2_to_53(dtype):
    # int64 arrays are read in C++, the other integer types through numpy: the same answers
    rng = np.random.default_rng(7)
    for n in (1, 4, 9):
        a = rng.integers(0, 9, (n, n)).astype(dtype)
        r = sparseperm.permanent(a)
        assert r.exact and r.value == sparseperm.permanent(a.astype(float).tolist()).value
        assert isinstance(r.value, int) and r.imag == 0 and r.error_bound is None
    assert sparseperm.permanent(np.array([[2**53, 0], [0, 1]], dtype=np.int64)).value == 2**53
    if np.iinfo(dtype).max > 2**53:
        with pytest.raises(ValueError, match="beyond 2\\^53"):
            sparseperm.permanent(np.array([[2**53 + 1, 0], [0, 1]], dtype=dtype))
    if dtype == np.int64:
        with pytest.raises(ValueError, match="beyond 2\\^53"):
            sparseperm.permanent(np.array([[-(2**53) - 1, 0], [0, 1]], dtype=dtype))
        with pytest.raises(ValueError, match="not square"):
            sparseperm.permanent(np.ones((2, 3), dtype=dtype))


@pytest.mark.parametrize("dtype", [np.float64, np.complex128, np.int64, np.int16, np.uint8, np.uint64, np.bool_,
                                   np.float32, np.dtype(">f8"), np.dtype(">i8")])
def test_arrays_of_every_layout_give_the_values_of_lists(dtype):
    # float64, complex128, integer and bool arrays are read in place through the buffer protocol, with
    # their strides (transposed, sliced, reversed); the others (float32, big-endian) are converted in
    # Python. Each must give what the same numbers as nested lists give.
    rng = np.random.default_rng(11)
    base = rng.integers(0, 3, (14, 14)) * (1j if np.dtype(dtype).kind == "c" else 1)
    if np.dtype(dtype).kind in "fc":
        base = base + rng.random((14, 14)) * (1 + 1j if np.dtype(dtype).kind == "c" else 1)
    base = base.astype(dtype)
    in_place = np.dtype(dtype).isnative and np.dtype(dtype) != np.float32
    options = sparseperm._options("auto", None, None, None, None, None, None)
    for a in (base[:5, :5], base[:7, :7].T, base[::2, ::2], base[::-3, 1::3], np.asfortranarray(base[:8, :8])):
        assert (sparseperm._core.compute_array(a, options) is not None) == in_place
        expected = sparseperm.permanent(a.tolist())
        r = sparseperm.permanent(a)
        assert r.exact == expected.exact
        if r.exact:
            assert r.value == expected.value
        else:
            assert abs(r.value - expected.value) <= r.error_bound + expected.error_bound


@pytest.mark.parametrize("matrix", [
    np.array([[1 + np.longdouble(2) ** -60, 0], [0, 1]], dtype=np.longdouble),
    [[2**53 + 1, 0.5], [0, 1]],
    [[fractions.Fraction(1, 3), 0], [0, 1]],
    [[decimal.Decimal("0.1"), 0], [0, 1]],
    scipy.sparse.csr_array(np.array([[1, 0], [0, 1 + np.longdouble(2) ** -60]], dtype=np.longdouble)),
])
def test_entries_a_double_does_not_hold_are_refused_not_rounded(matrix):
    # they returned 1 marked exact, or were off by 1 against a bound of 0.0024
    with pytest.raises(ValueError, match="is not exactly a double"):
        sparseperm.permanent(matrix)


def test_entries_a_double_holds_exactly_are_taken():
    r = sparseperm.permanent([[fractions.Fraction(3, 1), decimal.Decimal("0.5")], [np.longdouble(2), 2**53]])
    assert abs(fractions.Fraction(r.value) - (3 * 2**53 + 1)) <= fractions.Fraction(r.error_bound)
    assert sparseperm.permanent(np.array([[1.5, 2], [3, 4]], dtype=np.longdouble)).value == pytest.approx(12.0)


def test_results_beyond_the_decimal_digit_limit():
    # 1600! has 4434 digits, beyond int()'s default limit of 4300: the exact int all the same
    r = sparseperm.permanent([[1]], rows=[1600], cols=[1600])
    assert r.exact
    assert r.value == math.factorial(1600)
    assert len(str(r)) == 4434


def test_conversions():
    r = sparseperm.permanent([[1, 2], [3, 4]])
    assert int(r) == 10 and float(r) == 10.0 and complex(r) == 10
    c = sparseperm.permanent([[1j, 0], [0, 1]])
    assert complex(c) == 1j
    with pytest.raises(TypeError):
        int(c)
    assert "10" in repr(r) and str(r) == "10"


@pytest.mark.parametrize("bad, message", [
    (np.ones((2, 3)), "not square|square"),
    (np.ones((2, 2, 2)), "two dimensions"),
    ([[1.0, float("nan")], [1, 1]], "not a finite number"),
    ([[1.0, float("inf")], [1, 1]], "not a finite number"),
    ([["a", "b"], ["c", "d"]], "not numbers|not a number"),
    (np.array([[2**60, 1], [1, 1]]), "2\\^53"),
])
def test_bad_matrices_raise_value_error(bad, message):
    with pytest.raises(ValueError, match=message):
        sparseperm.permanent(bad)


def test_bad_options():
    a = np.ones((3, 3))
    with pytest.raises(ValueError, match="unknown engine") as unknown:
        sparseperm.permanent(a, engine="fastest")
    # the message lists every engine once, auto first
    listed = str(unknown.value).split("(engines: ")[1].rstrip(")").split(", ")
    assert listed == ["auto"] + [e.name for e in sparseperm.engines()]
    with pytest.raises(ValueError, match="precision"):
        sparseperm.permanent(a, precision="quad")
    # 0.5 and 3e-200 in a row: integers beyond 2^53 times one power of two, in dp's big integers
    exact = fractions.Fraction(0.5) + fractions.Fraction(3e-200) ** 2
    assert sparseperm.permanent([[0.5, 3e-200], [3e-200, 1.0]], precision="exact").value == exact
    with pytest.raises(ValueError):  # 0.5 and 3e-300: the row's integers are beyond double's range
        sparseperm.permanent([[0.5, 3e-300], [0.0, 1.0]], precision="exact")
    assert sparseperm.permanent(np.full((3, 3), 0.5), precision="exact").value == fractions.Fraction(3, 4)
    with pytest.raises(ValueError, match="threads"):
        sparseperm.permanent(a, threads=0)
    with pytest.raises(ValueError, match="option 'devices': 'x' is not"):
        sparseperm.permanent(a, devices="x")
    with pytest.raises(ValueError, match="outside"):
        sparseperm.permanent(a, devices=[0, -1])
    with pytest.raises(ValueError, match="empty item"):
        sparseperm.permanent(a, devices="0,,1")
    with pytest.raises(ValueError, match="counts"):
        sparseperm.permanent(a, rows=[1, 2])
    with pytest.raises(ValueError, match="not be square"):
        sparseperm.permanent(a, rows=[1, 1, 2])
    with pytest.raises(ValueError, match="below 0"):
        sparseperm.permanent(a, rows=[-1, 2, 2], cols=[1, 1, 1])
    with pytest.raises(ValueError, match="time limit"):
        sparseperm.permanent(np.ones((60, 60)), engine="cpu-sparse", time_limit=1.0)


@pytest.mark.skipif(HAS_GPU, reason="a CUDA device is present")
def test_gpu_engine_unavailable_here():
    with pytest.raises(sparseperm.EngineUnavailableError):
        sparseperm.permanent(np.ones((4, 4)), engine="gpu-sparse")
    with pytest.raises(sparseperm.EngineUnavailableError, match="no CUDA device"):
        sparseperm.permanent(np.ones((4, 4)), devices="all")
    assert issubclass(sparseperm.EngineUnavailableError, RuntimeError)


def test_batch_equals_one_by_one():
    rng = np.random.default_rng(5)
    for kind in ("ones", "real", "complex"):
        batch = np.stack([random_matrix(rng, 9, 0.5, kind) for _ in range(200)])
        together = sparseperm.permanents(batch, threads=2)
        alone = [sparseperm.permanent(a, threads=1) for a in batch]
        assert [r.value for r in together] == [r.value for r in alone]
        assert [r.error_bound for r in together] == [r.error_bound for r in alone]
    mixed = [np.ones((3, 3), dtype=int), scipy.sparse.csr_array(np.eye(5)), [[1, 2], [3, 4]]]
    assert [r.value for r in sparseperm.permanents(mixed)] == [6, 1, 10]
    with pytest.raises(ValueError, match="matrix 1: "):
        sparseperm.permanents([np.ones((2, 2)), np.array([[1.0, np.nan], [1, 1]])])


def exact_permanent(a):
    """perm(A) over the rationals (every double is one): the truth a bound must contain."""
    from fractions import Fraction

    rows = [[(Fraction(complex(v).real), Fraction(complex(v).imag)) for v in row] for row in a]
    n = len(rows)
    re_total, im_total = Fraction(0), Fraction(0)
    for s in itertools.permutations(range(n)):
        re, im = Fraction(1), Fraction(0)
        for i in range(n):
            x, y = rows[i][s[i]]
            re, im = re * x - im * y, re * y + im * x
        re_total += re
        im_total += im
    return re_total, im_total


def assert_within_bound(result, truth):
    from fractions import Fraction

    re, im = truth
    value = complex(result.value)
    error = math.hypot(float(Fraction(value.real) - re), float(Fraction(value.imag) - im))
    assert error <= result.error_bound, (result, error)


def dense_batch(rng, count, n, kind):
    if kind == "complex":
        return rng.normal(size=(count, n, n)) + 1j * rng.normal(size=(count, n, n))
    if kind == "int":
        return rng.integers(1, 4, size=(count, n, n))
    return rng.normal(size=(count, n, n))


def test_dense_batch_without_plans():
    rng = np.random.default_rng(11)
    for n in (7, 8, 10, 12):
        for kind in ("real", "complex", "int"):
            batch = dense_batch(rng, 40, n, kind)
            together = sparseperm.permanents(batch, threads=2, engine="cpu-sparse" if HAS_GPU else "auto")
            assert all(r.plan.startswith("dense, no plan") and r.engine == "cpu-sparse" for r in together)
            alone = [sparseperm.permanent(a, threads=1) for a in batch[:8]]
            for t, a in zip(together, alone):
                assert t.exact == a.exact == (kind == "int")
                if t.exact:
                    assert t.value == a.value
                else:  # two certified intervals around one truth overlap
                    assert abs(complex(t.value) - complex(a.value)) <= t.error_bound + a.error_bound
    for kind in ("real", "complex"):
        batch = dense_batch(rng, 6, 7, kind)
        for r, a in zip(sparseperm.permanents(batch, threads=2), batch):
            assert_within_bound(r, exact_permanent(a))
    assert sparseperm.permanents(np.ones((4, 8, 8)), threads=2).values.tolist() == [40320] * 4
    # complex128 read in place: a strided view (transposed matrices: the same permanents), and one
    # matrix of real values among the complex ones (a real result, as alone)
    batch = dense_batch(rng, 9, 8, "complex")
    batch[4] = batch[4].real
    for r, a in zip(sparseperm.permanents(np.swapaxes(batch, 1, 2), threads=2), batch):
        alone = sparseperm.permanent(a, threads=1)
        assert type(r.value) is type(alone.value)
        assert abs(complex(r.value) - complex(alone.value)) <= r.error_bound + alone.error_bound
    # Gaussian integers in complex128 (exact, so not the lanes: the library builds each matrix from
    # the array's pairs)
    gaussian = rng.integers(-3, 4, size=(5, 8, 8)) + 1j * rng.integers(-3, 4, size=(5, 8, 8))
    for r, a in zip(sparseperm.permanents(gaussian, threads=2), gaussian):
        assert r.exact and r.value == sparseperm.permanent(a, threads=1).value


def test_results_arrays_and_indexing():
    rng = np.random.default_rng(12)
    batch = dense_batch(rng, 10, 8, "complex")
    results = sparseperm.permanents(batch, threads=2)
    assert len(results) == 10 and results[-1] is results[9] and len(results[2:5]) == 3
    with pytest.raises(IndexError):
        results[10]
    assert results.values.dtype == np.complex128 and results.error_bounds.dtype == np.float64
    assert results.values.tolist() == [r.value for r in results]
    assert results.error_bounds.tolist() == [r.error_bound for r in results]
    assert not results.exact.any()
    exact = sparseperm.permanents([np.eye(3, dtype=int), 2 * np.eye(40, dtype=int)])
    assert exact.values.tolist() == [1, 2**40] and type(exact.values[1]) is int
    assert exact.error_bounds.tolist() == [0.0, 0.0] and exact.exact.all()
    assert len(sparseperm.permanents(np.zeros((0, 3, 3)))) == 0


def haar_unitary(rng, m):
    q, r = np.linalg.qr(rng.normal(size=(m, m)) + 1j * rng.normal(size=(m, m)))
    return q * (np.diag(r) / np.abs(np.diag(r)))


def occupations(m, n):
    """Every way of putting n photons in m modes."""
    if m == 1:
        yield (n,)
        return
    for k in range(n, -1, -1):
        for rest in occupations(m - 1, n - k):
            yield (k,) + rest


def test_probabilities_of_boson_sampling():
    from fractions import Fraction

    rng = np.random.default_rng(21)
    U = haar_unitary(rng, 6)
    for photons in ([1, 1, 1, 0, 0, 0], [2, 0, 1, 0, 0, 0], [1, 0, 1, 0, 1, 1]):
        n = sum(photons)
        outputs = list(occupations(6, n))
        p = sparseperm.probabilities(U, photons, outputs)
        assert p.values.shape == p.error_bounds.shape == (len(outputs),)
        # U is unitary: the probabilities of every output pattern add up to 1 (U's own rounding aside)
        assert abs(p.values.sum() - 1) <= 1e-12 + p.error_bounds.sum()
        rows = np.repeat(np.arange(6), photons)
        denominator = math.prod(math.factorial(k) for k in photons)
        for t, value, bound in list(zip(outputs, p.values, p.error_bounds))[::7]:
            sub = U[np.ix_(rows, np.repeat(np.arange(6), t))]
            re, im = exact_permanent(sub)
            exact = (re * re + im * im) / (denominator * math.prod(math.factorial(k) for k in t))
            assert abs(Fraction(float(value)) - exact) <= Fraction(float(bound)), (t, value, bound)
            assert bound <= 1e-12 * max(value, 1e-3)  # and it says something
    # eight photons in 16 modes: the batch's lanes, against one permanent() a pattern
    V = haar_unitary(rng, 16)
    photons = [1, 0] * 8
    outputs = [rng.permutation([1] * 6 + [2] + [0] * 9) for _ in range(9)]
    p = sparseperm.probabilities(V, photons, outputs)
    for t, value, bound in zip(outputs, p.values, p.error_bounds):
        sub = V[np.ix_(np.repeat(np.arange(16), photons), np.repeat(np.arange(16), t))]
        single = sparseperm.permanent(sub)
        expected = abs(complex(single.value)) ** 2 / 2
        assert abs(value - expected) <= bound + (2 * abs(complex(single.value)) * single.error_bound) / 2 * 1.01
    with pytest.raises(ValueError, match="holds 2 photons"):
        sparseperm.probabilities(U, [1, 1, 1, 0, 0, 0], [[1, 1, 0, 0, 0, 0]])
    with pytest.raises(ValueError, match="input"):
        sparseperm.probabilities(U, [1, -1, 1, 0, 0, 0], [])
    assert len(sparseperm.probabilities(U, [1, 0, 0, 0, 0, 0], []).values) == 0


@pytest.mark.skipif(not HAS_GPU, reason="no CUDA device")
def test_gpu_batch_against_the_cpu():
    rng = np.random.default_rng(13)
    for n in (7, 9, 12, 16):
        for kind in ("real", "complex"):
            batch = dense_batch(rng, 300, n, kind)
            for precision in (None, "compensated"):
                gpu = sparseperm.permanents(batch, engine="gpu-sparse", precision=precision)
                cpu = sparseperm.permanents(batch, engine="cpu-sparse", precision=precision)
                assert all(r.engine == "gpu-sparse" and "a warp each" in r.plan for r in gpu)
                assert np.all(np.abs(gpu.values - cpu.values) <= gpu.error_bounds + cpu.error_bounds)
    for kind in ("real", "complex"):
        batch = dense_batch(rng, 4, 7, kind)
        for r, a in zip(sparseperm.permanents(batch, engine="gpu-sparse"), batch):
            assert_within_bound(r, exact_permanent(a))
    # integers stay exact: the engine itself (not the batch's floating route), matrix by matrix
    ints = sparseperm.permanents(dense_batch(rng, 3, 8, "int"), engine="gpu-sparse")
    assert ints.exact.all()


@pytest.mark.skipif(HAS_GPU, reason="a CUDA device is present")
def test_gpu_batch_unavailable_here():
    with pytest.raises(sparseperm.EngineUnavailableError):
        sparseperm.permanents(np.ones((8, 9, 9)) * 0.5, engine="gpu-sparse", threads=2)


def test_read_mtx_and_the_bundled_example(tmp_path):
    domino = sparseperm.read_mtx(os.path.join(EXAMPLES, "domino_8x6.mtx"))
    assert isinstance(domino, scipy.sparse.csr_array) and domino.shape == (24, 24)
    assert sparseperm.permanent(domino).value == 167089
    bad = tmp_path / "bad.mtx"
    bad.write_text("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 3 1.0\n")
    with pytest.raises(ValueError, match="bad.mtx:3"):
        sparseperm.read_mtx(bad)
    with pytest.raises(ValueError, match="no such file"):
        sparseperm.read_mtx(tmp_path / "missing.mtx")


@pytest.mark.skipif(not SHARED or not os.path.isdir(SHARED), reason="the shared matrices are not here")
def test_shared_matrices_against_dp():
    a = sparseperm.read_mtx(os.path.join(SHARED, "karate.mtx"))
    auto, dp = sparseperm.permanent(a), sparseperm.permanent(a, engine="dp")
    assert auto.value == dp.value and auto.exact


def test_inspect_and_engines():
    plan = sparseperm.inspect(np.ones((5, 5)))
    assert plan["n"] == 5 and plan["engine"] and plan["blocks"][0]["estimates"]
    names = [e.name for e in sparseperm.engines()]
    assert "cpu-sparse" in names and "gpu-cached" in names


LONG_RUNS = {  # a run taking minutes, in short steps that a stop request waits for: engine, matrix, call
    # and (where not 2 s) how long it runs before Ctrl-C
    "cpu-sparse": ("cpu-sparse", "(rng.random((40, 40)) < 0.5) * 0.5", "permanent"),  # chunks of 2^22 steps
    "glynn": ("glynn", "(rng.random((40, 40)) < 0.5) * 0.5", "permanent"),  # tasks of 2^22 terms
    "dp": ("dp", "np.triu(np.tril(rng.random((3000, 3000)) + 0.5, 10), -10)", "permanent"),  # 2^17 states a column
    # columns of up to 2e7 states (a dense 27 x 27: seconds each from about 5 s on, 0.9 GB): stopped
    # inside one
    "dp-one-column": ("dp", "rng.random((27, 27)) + 0.5", "permanent", 8.0),
    # dense complex Ryser in long double, 2^25 steps
    "reference": ("reference", "rng.random((26, 26)) + 1j * rng.random((26, 26))", "permanent"),
    # a list whose second matrix is long: the batch hands the stop to the matrix it runs (a dense
    # 30 x 30 takes the batch's unplanned Ryser loop on the CPU, which cpu-sparse asks for: auto would
    # give it the whole GPU where there is one, 3 ms; a sparse 40 x 40 the planner's)
    "permanents-dense": ("cpu-sparse", "rng.random((30, 30)) + 0.5", "permanents"),
    "permanents-planned": ("auto", "(rng.random((40, 40)) < 0.5) * 0.5", "permanents"),
}
if HAS_GPU:
    LONG_RUNS["gpu-sparse"] = ("gpu-sparse", "(rng.random((46, 46)) < 0.5) * 0.5", "permanent")


@pytest.mark.parametrize("case", sorted(LONG_RUNS))
def test_ctrl_c_interrupts_a_long_run(case):
    engine, matrix, call, wait = (LONG_RUNS[case] + (2.0,))[:4]
    threads = ", threads=1" if not engine.startswith("gpu") else ""
    subject = "a" if call == "permanent" else "[np.ones((3, 3)), a, a]"
    script = textwrap.dedent(f"""
        import sys, time, numpy as np, sparseperm
        rng = np.random.default_rng(1)
        a = {matrix}
        sparseperm.permanent(a[:20, :20], engine="{engine}")  # a GPU's context starts here
        print("started", flush=True)
        try:
            sparseperm.{call}({subject}, engine="{engine}"{threads}, time_limit=float("inf"))
        except KeyboardInterrupt:
            print("interrupted", time.monotonic(), flush=True)
            assert sparseperm.permanent(np.ones((3, 3))).value == 6  # the interpreter goes on
            sys.exit(3)
        print("finished", flush=True)
    """)
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "started"
    time.sleep(wait)
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=60)
    assert p.returncode == 3 and "interrupted" in out
    stopped = float(out.split()[1]) - sent  # CLOCK_MONOTONIC: one clock for both processes
    print(f"{case}: stopped {stopped:.3f} s after Ctrl-C")
    assert stopped < 1.0


def test_long_runs_from_threads_and_a_forked_child():
    """Long calls run on worker threads kept from call to call: calls from several Python threads at
    once each get one, and a child forked after the parent used them starts workers of its own (it
    would wait forever for the parent's, which it does not have)."""
    script = textwrap.dedent("""
        import multiprocessing, threading, numpy as np, sparseperm
        a = np.random.default_rng(2).random((8, 20, 20))  # n = 20: a worker thread's run
        want = sparseperm.permanents(a, threads=1).values
        same = []
        def again():
            same.append(bool((sparseperm.permanents(a, threads=2).values == want).all()))
        calls = [threading.Thread(target=again) for _ in range(3)]
        for t in calls:
            t.start()
        for t in calls:
            t.join()
        fork = multiprocessing.get_context("fork")
        answer = fork.Queue()
        child = fork.Process(target=lambda: answer.put(bool((sparseperm.permanents(a, threads=2).values == want).all())))
        child.start()
        print(same, answer.get(timeout=60), flush=True)
        child.join(10)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[True, True, True] True"


def test_trusted_digits_is_an_attribute():
    floating = sparseperm.permanent([[1.5, 2.0], [3.0, 4.0]])
    assert floating.trusted_digits == floating.record["trusted_digits"]
    assert 14 <= floating.trusted_digits <= 17
    assert sparseperm.permanent(np.ones((3, 3))).trusted_digits is None  # exact


def test_the_stub_matches_the_package():
    """__init__.pyi against __init__.py: every function's parameters and return type, and every
    attribute the stub gives Result is one the class has."""
    import ast

    folder = os.path.dirname(sparseperm.__file__)

    def functions(path):
        with open(path) as f:
            tree = ast.parse(f.read())
        return {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}, tree

    stub, stub_tree = functions(os.path.join(folder, "__init__.pyi"))
    code, _ = functions(os.path.join(folder, "__init__.py"))
    assert stub, "the stub declares no function"
    for name, declared in stub.items():
        assert name in code, name
        defined = code[name]
        assert ast.unparse(declared.args) == ast.unparse(defined.args), name
        assert ast.unparse(declared.returns) == ast.unparse(defined.returns), name
    result = next(node for node in stub_tree.body if isinstance(node, ast.ClassDef) and node.name == "Result")
    fields = [node.target.id for node in result.body if isinstance(node, ast.AnnAssign)]
    assert "trusted_digits" in fields
    for field in fields:  # a slot set at once, or a property read from the record when asked for
        slot = field in sparseperm.Result.__slots__
        assert slot or isinstance(getattr(sparseperm.Result, field, None), property), field


def exact_ryser(a):
    """The exact permanent of a matrix of doubles (or complex doubles), in Fractions: Ryser over subsets."""
    n = len(a)
    rows = [[(fractions.Fraction(complex(v).real), fractions.Fraction(complex(v).imag)) for v in row] for row in a]
    total_re = total_im = fractions.Fraction(0)
    for mask in range(1, 1 << n):
        p_re, p_im = fractions.Fraction(1), fractions.Fraction(0)
        for i in range(n):
            s_re = sum((rows[i][j][0] for j in range(n) if mask >> j & 1), fractions.Fraction(0))
            s_im = sum((rows[i][j][1] for j in range(n) if mask >> j & 1), fractions.Fraction(0))
            p_re, p_im = p_re * s_re - p_im * s_im, p_re * s_im + p_im * s_re
        sign = -1 if (n - bin(mask).count("1")) % 2 else 1
        total_re += sign * p_re
        total_im += sign * p_im
    return total_re, total_im


def test_bounds_where_terms_cancel_contain_the_exact_value_and_certify_digits():
    rng = np.random.default_rng(2026)
    for n in (7, 9):
        for is_complex in (False, True):
            a = rng.uniform(-1, 1, (n, n)) + (1j * rng.uniform(-1, 1, (n, n)) if is_complex else 0)
            re, im = exact_ryser(a.tolist())
            for precision in (None, "double", "compensated", "double-double"):
                r = sparseperm.permanent(a, precision=precision)
                assert not r.exact
                error = abs(complex(r.value) - complex(float(re), float(im)))
                assert error <= r.error_bound, (n, is_complex, precision)
                assert r.trusted_digits >= (15 if precision == "double-double" else 11), (n, precision)


def test_digits_ask_for_double_double_and_exact_dyadic_values():
    rng = np.random.default_rng(7)
    a = (rng.normal(size=(14, 14)) + 1j * rng.normal(size=(14, 14))) / np.sqrt(2)
    first = sparseperm.permanent(a)
    assert first.trusted_digits >= 10 and "double-double" not in first.plan
    r = sparseperm.permanent(a, digits=15)
    assert r.trusted_digits >= 15 and "so again in double-double" in r.plan
    assert abs(r.value - first.value) <= r.error_bound + first.error_bound
    with pytest.raises(ValueError, match="digits"):
        sparseperm.permanent(a, precision="double", digits=12)
    with pytest.raises(ValueError, match="digits"):
        sparseperm.permanent(a, digits=0)
    # an all-equal 62 x 62 matrix of 0.91: exactly 62! a^62 for the double a, through Glynn's 62 terms
    record = sparseperm.permanent(np.full((62, 62), 0.91))
    assert record.exact and record.value == math.factorial(62) * fractions.Fraction(0.91) ** 62
    half = sparseperm.permanent([[0.5, -0.25], [0.75, 1.0]], precision="exact")
    assert half.exact and half.value == fractions.Fraction(5, 16)  # 1/2 - 3/16
