"""Permanents of sparse matrices, perm(A) = sum over permutations s of prod_i A[i, s(i)].

    >>> import sparseperm
    >>> r = sparseperm.permanent([[1, 1], [1, 1]])
    >>> r.value, r.exact
    (2, True)

The same engines, planner, arithmetic and module cache as the ``sparseperm`` command-line tool:
integer matrices are exact by default (the value is a Python ``int``), others come with a proven
``error_bound``. GPU engines are there when the package was built with nvcc and a CUDA device is
present (``sparseperm.engines()`` says which engines run here and why not).
"""

from __future__ import annotations

import collections.abc
import math
from fractions import Fraction
import os
from typing import Any, Iterable, NamedTuple, Optional, Sequence, Union

import numpy as np
import scipy.sparse

from . import _sparseperm as _core
from ._sparseperm import EngineUnavailableError, SparsepermError

__all__ = [
    "permanent",
    "permanents",
    "probabilities",
    "read_mtx",
    "inspect",
    "engines",
    "Result",
    "Results",
    "Probabilities",
    "Engine",
    "SparsepermError",
    "EngineUnavailableError",
]
__version__ = "0.1.0"

# An installed wheel carries the library's headers, which the generated engines compile against; in a
# build tree the library finds its own source tree.
_HEADERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "include")
_INCLUDE_DIR = _HEADERS if os.path.isdir(os.path.join(_HEADERS, "sparseperm")) else ""

# Integers beyond 2^53 are not all doubles: such a matrix could not be computed as given.
_MAX_EXACT_INTEGER = 2**53


class Result:
    """A permanent and how it was computed: the record the command-line tool prints with ``--json``.

    ``value`` is a Python ``int`` when ``exact`` (never a rounded float), else a ``float`` (real
    matrices) or ``complex`` (an exact complex permanent has its parts as ``int`` in ``real`` and
    ``imag``); ``error_bound`` bounds ``|value - permanent|`` (the modulus for complex
    results; ``None`` when exact). ``engine`` and ``plan`` say what ran, ``seconds`` the wall time
    and ``timings`` its phases (plan, codegen, compile, compute, total). A floating permanent beyond
    double's range has ``value`` inf or 0 and is ``mantissa * 2**exponent`` exactly as computed;
    ``str()`` writes it in decimal. ``trusted_digits`` is the number of significant decimal digits
    the bound guarantees (``None`` when exact). Every other field of the record
    (``registers_per_thread``, ...) is an attribute too, and ``record`` is the whole of it.
    """

    __slots__ = ("value", "exact", "error_bound", "exponent", "_mantissa", "_parts", "_record", "_dict", "_details")

    def __init__(self, record):
        # record: the extension's _Record (the result kept in C++; the other attributes and the dict
        # are made when asked for: a small matrix's call is mostly this). A floating result within
        # double's range and an exact real integer within 64 bits come whole from summary(); other
        # exact and scaled ones are read here.
        self._record = record
        self._dict: Optional[dict] = None
        self._details: Optional[tuple] = None
        self.value, self.exact, self.error_bound, self._parts = record.summary()
        self.exponent: int = 0
        if self._parts is not None:
            self._read_parts(*self._parts)

    def _read_parts(self, real, imag, is_complex: bool):
        # summary()'s parts: the decimal texts when exact, None when scaled
        if self.exact:
            real, imag = _exact_number(real), _exact_number(imag) if is_complex else 0
        else:  # beyond double's range: value inf or 0, the exact mantissa and exponent
            s = self.record["scaled"]
            self.exponent = s["exponent"]
            real, imag = s["value"], s["imag"]
            self.error_bound = _scaled(s["error_bound"], self.exponent)
        self._mantissa = (real, imag, is_complex)
        self._parts = (_scaled(real, self.exponent), _scaled(imag, self.exponent)) if self.exponent else (real, imag)
        self.value: Union[int, float, complex] = complex(*self._parts) if is_complex else self._parts[0]

    def _value_parts(self) -> tuple:
        """(real, imag): as read for exact and scaled results, else the value's."""
        if self._parts is not None:
            return self._parts
        if type(self.value) is complex:
            return (self.value.real, self.value.imag)
        return (self.value, 0 if self.exact else 0.0)

    def _detail(self, k: int):
        if self._details is None:
            self._details = self._record.details()
        return self._details[k]

    trusted_digits = property(lambda self: self._detail(0),
                              doc="The significant decimal digits the bound guarantees (None when exact).")
    engine = property(lambda self: self._detail(1), doc="The engine, or the engines of a plan's blocks.")
    plan = property(lambda self: self._detail(2), doc="How the engines ran, in words.")
    seconds = property(lambda self: self._detail(3), doc="The call's wall time.")
    n = property(lambda self: self._detail(4))
    nnz = property(lambda self: self._detail(5))
    threads = property(lambda self: self._detail(6))

    @property
    def mantissa(self) -> Union[int, float, complex]:
        """The value as computed; ``value == mantissa * 2**exponent``."""
        if self._parts is None:  # within double's range: the value as computed
            return self.value
        real, imag, is_complex = self._mantissa
        return complex(real, imag) if is_complex else real

    @property
    def record(self) -> dict:
        """The whole record, as the command-line tool prints it with ``--json``."""
        if self._dict is None:
            self._dict = self._record.dict()
        return self._dict

    @property
    def timings(self) -> dict:
        """The phases' seconds: plan, codegen, compile, compute, total."""
        return self.record["seconds"]

    def __getattr__(self, name: str):
        try:
            return self.record[name]
        except KeyError:
            raise AttributeError(f"a sparseperm.Result has no field {name!r}") from None

    @property
    def real(self) -> Union[int, float]:
        """The real part (an exact ``int`` when ``exact``)."""
        return self._value_parts()[0]

    @property
    def imag(self) -> Union[int, float]:
        """The imaginary part (0 for a real matrix; an exact ``int`` when ``exact``)."""
        return self._value_parts()[1]

    def __int__(self) -> int:
        if isinstance(self.value, complex):
            raise TypeError("the permanent is complex: use .real and .imag")
        return int(self.value)

    def __float__(self) -> float:
        if isinstance(self.value, complex):
            raise TypeError("the permanent is complex: use complex()")
        return float(self.value)

    def __complex__(self) -> complex:
        return complex(self.value)

    def __str__(self) -> str:
        return self.record["permanent"]

    def __repr__(self) -> str:
        how = "exact" if self.exact else f"error_bound={self.error_bound:.2g}"
        return f"<sparseperm.Result {self} ({how}) engine={self.engine!r} seconds={self.seconds:.3g}>"


class Results(collections.abc.Sequence):
    """The results of ``permanents``: a sequence of Result (each made when asked for), and the
    batch's numbers as numpy arrays in one pass.

    ``values``: ``complex128`` if any matrix is complex, else ``float64``; an object array of Python
    ``int`` (or ``complex`` of them) when every result is exact. ``error_bounds``: ``float64``, 0 for
    exact results. ``exact``: ``bool``. A floating permanent beyond double's range is inf or 0 in
    ``values``: its Result holds it exactly (``mantissa``, ``exponent``).
    """

    __slots__ = ("_records", "_cache")

    def __init__(self, records):
        self._records = records
        self._cache: dict = {}

    def __len__(self) -> int:
        return len(self._records)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[k] for k in range(*index.indices(len(self)))]
        count = len(self)
        k = index + count if index < 0 else index
        if not 0 <= k < count:
            raise IndexError("batch index out of range")
        if k not in self._cache:
            self._cache[k] = Result(self._records.record(k))
        return self._cache[k]

    @property
    def exact(self) -> np.ndarray:
        return self._records.exact()

    @property
    def error_bounds(self) -> np.ndarray:
        return self._records.error_bound()

    @property
    def values(self) -> np.ndarray:
        exact = self._records.exact()
        if len(self) and exact.all():
            out = np.empty(len(self), dtype=object)
            out[:] = [self[k].value for k in range(len(self))]
            return out
        real, imag = self._records.value(), self._records.imag()
        return real + 1j * imag if self._records.complex().any() else real

    def __repr__(self) -> str:
        return f"<sparseperm.Results of {len(self)} permanents>"


def _exact_number(text: str) -> Union[int, Fraction]:
    """An exact decimal: an int, or a Fraction where it has decimals (an exact dyadic permanent)."""
    if "." not in text:
        return _decimal_int(text)
    whole, decimals = text.split(".")
    return Fraction(_decimal_int(whole + decimals), 10**len(decimals))


def _decimal_int(text: str) -> int:
    """An exact decimal integer of any length: int() refuses more than sys.get_int_max_str_digits()
    digits (4300 by default; 2000! has 5736), so long ones are put together from pieces."""
    digits = text.lstrip("+-")
    if len(digits) <= 4000:
        return int(text)

    def join(piece: str) -> int:
        if len(piece) <= 4000:
            return int(piece)
        low = len(piece) // 2
        return join(piece[:-low]) * 10**low + join(piece[-low:])

    magnitude = join(digits)
    return -magnitude if text.startswith("-") else magnitude


def _scaled(mantissa: float, exponent: int) -> float:
    """mantissa * 2**exponent as a float: inf (with its sign) beyond double's range, 0 below it."""
    try:
        return math.ldexp(mantissa, exponent)
    except OverflowError:
        return math.copysign(math.inf, mantissa)


class Engine(NamedTuple):
    """An engine, whether it can run here, and why not."""

    name: str
    summary: str
    available: bool
    why: str


MatrixLike = Any  # numpy array, scipy.sparse array or matrix, or nested lists
Devices = Union[None, int, str, Iterable[int]]  # None, a count, "all", or device numbers


def _refuse_inexact(original: np.ndarray, converted: np.ndarray, position=None) -> None:
    """Entries that float64 (complex128) does not hold exactly are refused, never rounded in silence:
    long doubles, Fractions, Decimals and integers beyond 2^53 (a NaN is refused later, as itself).
    position(k) gives the row and column of entry k of a 1-D array (a sparse matrix's data)."""
    with np.errstate(invalid="ignore"):
        differ = (converted != original) & (original == original)
    if np.any(differ):
        at = tuple(int(k) for k in np.argwhere(differ)[0])
        i, j = position(at[0]) if position else at
        raise ValueError(f"the entry at row {i}, column {j} ({original[at]!r}) is not exactly a double, and "
                         "sparseperm computes with doubles: round it first, or give integers up to 2^53")


def _as_dense_values(a: np.ndarray, position=None) -> np.ndarray:
    """Numbers as float64 or complex128; entries a double does not hold exactly and non-numbers are
    refused (position: as for _refuse_inexact)."""
    if a.dtype == np.bool_:
        return a.astype(np.float64)
    if np.issubdtype(a.dtype, np.integer):
        if a.size and int(np.abs(a.astype(object)).max() if a.dtype == np.uint64 else np.abs(a).max()) > _MAX_EXACT_INTEGER:
            raise ValueError("an integer entry is beyond 2^53, which a double does not hold exactly")
        return a.astype(np.float64)
    if a.dtype == object:
        try:
            flat = [complex(x) if isinstance(x, complex) else x for x in a.ravel()]
        except TypeError as e:
            raise ValueError(f"the matrix holds something that is not a number: {e}") from None
        if all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in flat):
            if flat and max(abs(int(x)) for x in flat) > _MAX_EXACT_INTEGER:
                raise ValueError("an integer entry is beyond 2^53, which a double does not hold exactly")
        kind = np.complex128 if any(isinstance(x, complex) for x in flat) else np.float64
        try:
            converted = np.array(flat, dtype=kind).reshape(a.shape)
        except (TypeError, ValueError) as e:
            raise ValueError(f"the matrix holds something that is not a number: {e}") from None
        _refuse_inexact(a, converted, position)
        return converted
    if np.issubdtype(a.dtype, np.complexfloating) or np.issubdtype(a.dtype, np.floating):
        converted = a.astype(np.complex128 if np.issubdtype(a.dtype, np.complexfloating) else np.float64, copy=False)
        if a.dtype.itemsize > converted.dtype.itemsize:  # long double
            _refuse_inexact(a, converted, position)
        return converted
    raise ValueError(f"the matrix's entries are {a.dtype}, not numbers")


def _square(shape: Sequence[int]) -> int:
    if len(shape) != 2:
        raise ValueError(f"a matrix has two dimensions, this one {len(shape)}")
    if shape[0] != shape[1]:
        raise ValueError(f"the matrix is {shape[0]} x {shape[1]}: a permanent needs a square matrix")
    return int(shape[0])


def _coordinates(a: MatrixLike):
    """(n, rows, cols, real, imag or None): the nonzeros, 0-based, int64 and float64."""
    if scipy.sparse.issparse(a):
        n = _square(a.shape)
        coo = scipy.sparse.coo_array(a)
        coo.sum_duplicates()
        data = _as_dense_values(np.asarray(coo.data), lambda k: (int(coo.row[k]), int(coo.col[k])))
        keep = data != 0
        rows = np.ascontiguousarray(coo.row[keep], dtype=np.int64)
        cols = np.ascontiguousarray(coo.col[keep], dtype=np.int64)
        data = data[keep]
    else:
        dense = np.asarray(a)
        if not isinstance(a, np.ndarray) and dense.dtype.kind in "fc" and dense.size:
            # nested lists: numpy rounds an int beyond 2^53 beside a float in silence; look at the
            # Python numbers themselves
            dense = np.asarray(a, dtype=object)
        if dense.ndim == 1 and dense.size == 0:  # [] : the 0 x 0 matrix
            dense = dense.reshape(0, 0)
        n = _square(dense.shape)
        dense = _as_dense_values(dense)
        rows, cols = np.nonzero(dense)
        data = dense[rows, cols]
        rows = rows.astype(np.int64, copy=False)
        cols = cols.astype(np.int64, copy=False)
    if np.iscomplexobj(data):
        return n, rows, cols, np.ascontiguousarray(data.real), np.ascontiguousarray(data.imag)
    return n, rows, cols, np.ascontiguousarray(data, dtype=np.float64), None


def _devices(devices) -> str:
    if devices is None:
        return ""
    if isinstance(devices, str):
        return devices
    if isinstance(devices, (int, np.integer)):
        return str(int(devices))
    return ",".join(str(int(d)) for d in devices)


def _multiplicities(counts, what: str) -> list:
    if counts is None:
        return []
    out = []
    for c in counts:
        if isinstance(c, bool) or not isinstance(c, (int, np.integer)):
            raise ValueError(f"{what}: multiplicities are integers, not {c!r}")
        out.append(int(c))
    return out


_DEFAULT_OPTIONS = []  # the defaults' _Options, made once: a small call's share of the time


def _options(engine, precision, threads, devices, rows, cols, time_limit, digits=None):
    """The settings as the command-line tool's text (the library reads both alike)."""
    defaults = (engine == "auto" and precision is None and threads is None and devices is None and rows is None
                and cols is None and time_limit is None and digits is None)
    if defaults and _DEFAULT_OPTIONS:
        return _DEFAULT_OPTIONS[0]
    if threads is None:
        threads = ""
    elif isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
        raise ValueError(f"threads: a positive count, not {threads!r}")
    if time_limit is None:
        limit = ""
    elif not time_limit > 0:
        raise ValueError(f"time_limit: seconds above 0 (math.inf: none), not {time_limit!r}")
    else:
        limit = "none" if math.isinf(time_limit) else f"{float(time_limit)!r}s"
    if digits is not None and (isinstance(digits, bool) or not isinstance(digits, (int, np.integer))):
        raise ValueError(f"digits: a whole number 1 to 17, not {digits!r}")
    options = _core._Options(engine=str(engine), precision=precision or "", threads=str(threads),
                             devices=_devices(devices), time_limit=limit,
                             rows=_multiplicities(rows, "rows"), cols=_multiplicities(cols, "cols"),
                             include_dir=_INCLUDE_DIR, digits="" if digits is None else str(digits))
    if defaults:
        _DEFAULT_OPTIONS.append(options)
    return options


def permanent(A: MatrixLike, *, engine: str = "auto", precision: Optional[str] = None,
              threads: Optional[int] = None, devices: Devices = None,
              rows: Optional[Sequence[int]] = None, cols: Optional[Sequence[int]] = None,
              time_limit: Optional[float] = None, digits: Optional[int] = None) -> Result:
    """The permanent of a square matrix.

    A: a numpy array (integers, floats or complex), a scipy.sparse array or matrix (any format), or
    nested lists. engine: "auto" (the planner: structure first, then the fastest engine for each
    block) or an engine's name (``engines()``). precision: None or "auto" (exact for integer
    matrices, compensated doubles with a proven bound otherwise, again in double-double, then
    exactly, where that bound certifies fewer than ``digits`` significant digits, default 10),
    "double", "compensated", "double-double" (cpu-sparse, gpu-sparse, cpu-cached, gpu-cached, dp,
    gpu-dp, glynn, gpu-glynn) or
    "exact" (integers, and any matrix of doubles, each row an integer row times a power of two: the
    value is then a ``fractions.Fraction`` where not an integer). threads: CPU threads (default: all). devices: GPUs, an index, a list or "all".
    rows, cols: multiplicities, the permanent of A with row i repeated rows[i] times and column j
    cols[j] times (boson sampling with several photons in a mode). time_limit: refuse a run
    estimated beyond this many seconds (default 24 hours; math.inf for none).

    Raises ValueError for a bad matrix or option, EngineUnavailableError for an engine that cannot
    run here, OverflowError where double precision overflows, KeyboardInterrupt on Ctrl-C.
    """
    options = _options(engine, precision, threads, devices, rows, cols, time_limit, digits)
    if type(A) is np.ndarray:
        # float64, complex128, integer and bool arrays: no coordinates, the library reads the array
        record = _core.compute_array(A, options)
        if record is not None:
            return Result(record)
    n, r, c, re, im = _coordinates(A)
    return Result(_core.compute(n, r, c, re, im, options))


def permanents(batch: Union[np.ndarray, Iterable[MatrixLike]], *, engine: str = "auto",
               precision: Optional[str] = None, threads: Optional[int] = None,
               devices: Devices = None, rows: Optional[Sequence[int]] = None,
               cols: Optional[Sequence[int]] = None, time_limit: Optional[float] = None) -> Results:
    """The permanents of many matrices, in parallel over the matrices.

    batch: an array of shape (B, n, n), or any sequence of matrices as ``permanent`` takes them.
    The options apply to every matrix. A matrix with every entry nonzero (7 <= n <= 30) needs no
    plan: floating ones run Ryser's loop four at a time in the SIMD lanes of one CPU thread, in
    double with compensated sums on values rounded to row grids (their bounds are proven; on signed
    or complex values of full precision they certify one or two digits fewer than ``permanent``'s,
    about 10 to 12 on random 8 x 8 to 16 x 16; precision="double" skips what costs the lanes half
    their time and certifies about 8 on a random 8 x 8, 4 on a 12 x 12; precision="double-double"
    runs each matrix as ``permanent`` does) (or, where
    there is a GPU and the batch is worth it, on one warp of the GPU each, n <= 24, or on the whole
    GPU each, gpu-dense, whichever is sooner), integer ones on one CPU thread each, exactly. engine="cpu-sparse" or
    "gpu-sparse" makes that choice; other engines run every matrix as ``permanent`` would. Returns
    Results (a sequence of Result in the batch's order, with numpy arrays ``values``,
    ``error_bounds`` and ``exact``); the first matrix that fails raises, its index in the message
    ("matrix 3: ...").
    """
    options = _options(engine, precision, threads, devices, rows, cols, time_limit)
    if isinstance(batch, np.ndarray) and batch.ndim == 3:
        if batch.shape[1] != batch.shape[2]:
            raise ValueError(f"the matrices are {batch.shape[1]} x {batch.shape[2]}: not square")
        values = np.ascontiguousarray(_as_dense_values(batch))
        complex_values = np.iscomplexobj(values)  # complex128 read in place, as float64 pairs
        records = _core.compute_dense_batch(values.view(np.float64) if complex_values else values,
                                            complex_values, options)
    else:
        records = _core.compute_batch([_coordinates(a) for a in batch], options)
    return Results(records)


class Probabilities(NamedTuple):
    """``probabilities``' answer: the probabilities, and a proven bound on each one's error."""
    values: np.ndarray
    error_bounds: np.ndarray


def _occupation(pattern, m: int, what: str) -> np.ndarray:
    counts = np.asarray(pattern)
    if counts.shape != (m,) or counts.dtype.kind not in "iu" or (counts < 0).any():
        raise ValueError(f"{what} must be {m} nonnegative integers (photons a mode), not {pattern!r}")
    return counts.astype(np.int64)


def probabilities(U: MatrixLike, input: Sequence[int], outputs: Iterable[Sequence[int]], *,
                  engine: str = "auto", precision: Optional[str] = None,
                  threads: Optional[int] = None, devices: Devices = None,
                  time_limit: Optional[float] = None) -> Probabilities:
    """Boson sampling's output probabilities: for an m x m interferometer U, photons in the modes
    as ``input`` says (s_i photons in mode i) and each output pattern t of ``outputs``,
    |perm(U[S, T])|^2 / (prod_i s_i! prod_j t_j!), where U[S, T] repeats row i s_i times and column
    j t_j times (n = sum s_i photons; every t must hold n).

    The n x n matrices go through ``permanents`` as one batch (the same options). Returns
    Probabilities(values, error_bounds), two float64 arrays: each bound proven from the permanent's
    (|p - p̂| <= (2|perm̂| e + e^2) / prod s_i! t_j!).
    """
    dense = np.asarray(U.toarray() if scipy.sparse.issparse(U) else U)
    if dense.ndim != 2 or dense.shape[0] != dense.shape[1]:
        raise ValueError(f"U must be a square matrix, not of shape {dense.shape}")
    m = dense.shape[0]
    s = _occupation(input, m, "input")
    n = int(s.sum())
    rows = np.repeat(np.arange(m), s)
    patterns = [_occupation(t, m, "an output") for t in outputs]
    for t in patterns:
        if int(t.sum()) != n:
            raise ValueError(f"the output {t.tolist()} holds {int(t.sum())} photons, the input {n}")
    factorials = np.array([math.prod(math.factorial(int(k)) for k in t) for t in patterns], dtype=float)
    denominators = factorials * math.prod(math.factorial(int(k)) for k in s)
    if not patterns:
        return Probabilities(np.zeros(0), np.zeros(0))
    batch = np.stack([dense[np.ix_(rows, np.repeat(np.arange(m), t))] for t in patterns])
    results = permanents(batch, engine=engine, precision=precision, threads=threads, devices=devices,
                         time_limit=time_limit)
    values = np.asarray(results.values, dtype=complex)
    modulus = np.abs(values)
    bounds = np.asarray(results.error_bounds, dtype=float)
    # |p̂ - p| <= (2|perm̂| e + e^2) / d, rounded up by a relative 2^-50 for this arithmetic's own
    # roundings (|perm̂|^2 / d itself is within a few ulps)
    p = modulus**2 / denominators
    error = (2 * modulus * bounds + bounds**2) / denominators * (1 + 2.0**-50) + 4 * np.finfo(float).eps * p
    return Probabilities(p, error)


def read_mtx(path: Union[str, os.PathLike[str]]) -> scipy.sparse.csr_array:
    """A Matrix Market file as a scipy.sparse CSR array (float64, or complex128 for complex files).

    The reader is the command-line tool's: coordinate or array; real, integer, complex or pattern
    (entries 1); general, symmetric, skew-symmetric or hermitian. A bad file raises ValueError
    naming the file and line.
    """
    n, rows, cols, real, imag = _core.read_mtx(os.fspath(path))
    data = real if imag is None else real + 1j * imag
    return scipy.sparse.csr_array((data, (rows, cols)), shape=(n, n))


def inspect(A: MatrixLike, *, engine: str = "auto", precision: Optional[str] = None,
            threads: Optional[int] = None, devices: Devices = None,
            rows: Optional[Sequence[int]] = None, cols: Optional[Sequence[int]] = None) -> dict[str, Any]:
    """The planner's view of A, without computing: a dict with n, nnz, the engine(s) auto would run,
    the plan, and for each block that an engine must compute its size and every engine's estimate
    (``{"seconds": float or None, "note": arithmetic, or why it cannot run}``).
    """
    n, r, c, re, im = _coordinates(A)
    return _core.inspect(n, r, c, re, im, _options(engine, precision, threads, devices, rows, cols, None))


def engines() -> list[Engine]:
    """Every engine of this build, whether it can run on this machine, and why not."""
    options = _options("auto", None, None, None, None, None, None)
    return [Engine(*e) for e in _core.engines(options)]
