import os
from fractions import Fraction
from typing import Any, Iterable, NamedTuple, Optional, Sequence, Union, overload

import numpy as np
import scipy.sparse

__version__: str

MatrixLike = Any  # numpy array, scipy.sparse array or matrix, nested lists
Devices = Union[None, int, str, Iterable[int]]

class SparsepermError(RuntimeError): ...
class EngineUnavailableError(SparsepermError): ...

class Result:
    value: Union[int, Fraction, float, complex]
    exact: bool
    error_bound: Optional[float]
    trusted_digits: Optional[int]
    engine: str
    plan: str
    seconds: float
    n: int
    nnz: int
    threads: int
    mantissa: Union[int, float, complex]
    exponent: int
    @property
    def record(self) -> dict[str, Any]: ...
    @property
    def timings(self) -> dict[str, float]: ...
    def __getattr__(self, name: str) -> Any: ...
    @property
    def real(self) -> Union[int, float]: ...
    @property
    def imag(self) -> Union[int, float]: ...
    def __int__(self) -> int: ...
    def __float__(self) -> float: ...
    def __complex__(self) -> complex: ...

class Engine(NamedTuple):
    name: str
    summary: str
    available: bool
    why: str

def permanent(A: MatrixLike, *, engine: str = "auto", precision: Optional[str] = None,
              threads: Optional[int] = None, devices: Devices = None, rows: Optional[Sequence[int]] = None,
              cols: Optional[Sequence[int]] = None, time_limit: Optional[float] = None,
              digits: Optional[int] = None) -> Result: ...
class Results(Sequence[Result]):
    @property
    def values(self) -> np.ndarray: ...
    @property
    def error_bounds(self) -> np.ndarray: ...
    @property
    def exact(self) -> np.ndarray: ...
    @overload
    def __getitem__(self, index: int) -> Result: ...
    @overload
    def __getitem__(self, index: slice) -> list[Result]: ...
    def __len__(self) -> int: ...

def permanents(batch: Union[np.ndarray, Iterable[MatrixLike]], *, engine: str = "auto",
               precision: Optional[str] = None, threads: Optional[int] = None, devices: Devices = None,
               rows: Optional[Sequence[int]] = None, cols: Optional[Sequence[int]] = None,
               time_limit: Optional[float] = None) -> Results: ...
class Probabilities(NamedTuple):
    values: np.ndarray
    error_bounds: np.ndarray

def probabilities(U: MatrixLike, input: Sequence[int], outputs: Iterable[Sequence[int]], *,
                  engine: str = "auto", precision: Optional[str] = None, threads: Optional[int] = None,
                  devices: Devices = None, time_limit: Optional[float] = None) -> Probabilities: ...
def read_mtx(path: Union[str, os.PathLike[str]]) -> scipy.sparse.csr_array: ...
def inspect(A: MatrixLike, *, engine: str = "auto", precision: Optional[str] = None,
            threads: Optional[int] = None, devices: Devices = None, rows: Optional[Sequence[int]] = None,
            cols: Optional[Sequence[int]] = None) -> dict[str, Any]: ...
def engines() -> list[Engine]: ...
