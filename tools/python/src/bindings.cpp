// sparseperm._sparseperm: the extension module behind the Python package (sparseperm/__init__.py
// turns Python inputs into coordinates and results into Python numbers). The computation runs with
// the GIL released (but a brief one: brief_run); a long one runs on a worker thread while this
// thread looks for Ctrl-C.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <bit>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include <unistd.h>

#include <sparseperm/matrix/input_error.cuh>

#include "door.hpp"

namespace nb = nanobind;
using namespace sparseperm::python;

namespace {

using index_array = nb::ndarray<const std::int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using value_array = nb::ndarray<const double, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using dense_batch = nb::ndarray<const double, nb::ndim<3>, nb::c_contig, nb::device::cpu>;

PyObject* sparseperm_error = nullptr;   // SparsepermError(RuntimeError): a run that failed
PyObject* unavailable_error = nullptr;  // EngineUnavailableError(SparsepermError): not on this machine

door_matrix to_matrix(int n, const index_array& rows, const index_array& columns, const value_array& real,
                      const std::optional<value_array>& imag) {
  door_matrix m;
  m.n = n;
  m.rows.assign(rows.data(), rows.data() + rows.shape(0));
  m.columns.assign(columns.data(), columns.data() + columns.shape(0));
  m.real.assign(real.data(), real.data() + real.shape(0));
  if (imag) m.imag.assign(imag->data(), imag->data() + imag->shape(0));
  return m;
}

// A field's name as a Python string, made (and interned) once: for_each_field passes the same
// literals on every call, and a small call's dict spent most of its time making and hashing its keys.
// The strings live as long as the process (never freed: no Python call after the interpreter ends).
nb::handle field_key(const char* name) {
  static auto* keys = new std::unordered_map<const char*, PyObject*>();
  auto [at, added] = keys->try_emplace(name, nullptr);
  if (added) {
    at->second = PyUnicode_InternFromString(name);
    if (at->second == nullptr) {
      keys->erase(at);
      throw nb::python_error();
    }
  }
  return at->second;
}

// A published field's value in Python (core/result.cuh's for_each_field: the JSON record's fields).
template <class T>
nb::object python_value(const T& value) {
  if constexpr (sparseperm::detail::is_optional_field<T>) {
    return value ? python_value(*value) : nb::none();
  } else if constexpr (std::is_same_v<T, std::string>) {
    return nb::str(value.c_str(), value.size());
  } else if constexpr (std::is_same_v<T, bool>) {
    return nb::bool_(value);
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    return nb::int_(value);
  } else if constexpr (std::is_same_v<T, double>) {
    return nb::float_(value);
  } else if constexpr (std::is_same_v<T, sparseperm::measured>) {
    return nb::float_(value.seconds);
  } else {  // a nested record
    nb::dict nested;
    for_each_field(value, [&](const char* name, const auto& v) { nested[field_key(name)] = python_value(v); });
    return nested;
  }
}

nb::dict to_dict(const sparseperm::permanent_result& r) {
  nb::dict d;
  for_each_field(r, [&](const char* name, const auto& value) { d[field_key(name)] = python_value(value); });
  return d;
}

// One result kept in C++ (sparseperm.Result holds it): `summary()` gives what a Result reads at once,
// `details()` its other attributes at the first that Python reads, `dict()` the whole record
// (for_each_field), made only where Python asks for it.
struct result_record {
  sparseperm::permanent_result result;
};

// (value, exact, error_bound, parts). A floating result within double's range: its value (float or
// complex) and bound, parts None; so an exact real integer within 64 bits (an int). Otherwise value
// and error_bound None and parts (real, imag, complex):
// the decimal texts when exact (a real result's imag: None), None when scaled (beyond double's range:
// Result reads the record's `scaled`). Four objects, not the thirteen with details_of's: a 4 × 4
// call's Result took about 1 µs to make.
nb::object summary_of(const sparseperm::permanent_result& r) {
  const bool scaled = r.scale_exponent != 0;
  if (!r.exact && !scaled) {
    const nb::object value = r.complex ? nb::steal(PyComplex_FromDoubles(r.value, r.imag)) : nb::float_(r.value);
    return nb::make_tuple(value, false, r.error_bound ? nb::object(nb::float_(*r.error_bound)) : nb::none(),
                          nb::none());
  }
  if (r.exact && !r.complex && !scaled) {  // an integer within 64 bits as an int (8 x 8 integer calls)
    long long v = 0;
    const char* end = r.permanent.data() + r.permanent.size();
    const auto [at, error] = std::from_chars(r.permanent.data(), end, v);
    if (error == std::errc{} && at == end) return nb::make_tuple(nb::int_(v), true, nb::none(), nb::none());
  }
  const auto part = [&](const std::string& text) -> nb::object {
    return scaled ? nb::none() : nb::object(nb::str(text.c_str(), text.size()));
  };
  return nb::make_tuple(nb::none(), r.exact, nb::none(),
                        nb::make_tuple(part(r.permanent), r.complex ? part(r.permanent_imag) : nb::none(), r.complex));
}

// (trusted_digits, engine, plan, total seconds, n, nnz, threads)
nb::object details_of(const sparseperm::permanent_result& r) {
  const auto digits = sparseperm::trusted_digits(r);
  return nb::make_tuple(digits ? nb::object(nb::int_(*digits)) : nb::none(), r.engine, r.plan, r.seconds.total, r.n,
                        r.nnz, r.threads);
}

// A batch's results, kept in C++: a sampler's million matrices become numpy arrays in one pass, and
// a result's dict (Result) only where Python asks for that one.
struct batch_records {
  sparseperm::permanent_results results;
};

// field(results, k): matrix k's field, read without making its result
template <class T, class Field>
nb::ndarray<nb::numpy, T, nb::ndim<1>> column_of(const batch_records& b, const Field& field) {
  const std::size_t count = b.results.size();
  T* data = new T[count > 0 ? count : 1];
  for (std::size_t k = 0; k < count; ++k) data[k] = field(b.results, k);
  nb::capsule owner(data, [](void* q) noexcept { delete[] static_cast<T*>(q); });
  return nb::ndarray<nb::numpy, T, nb::ndim<1>>(data, {count}, owner);
}

// The threads that run long calls (interruptible), kept from call to call: each keeps its OpenMP
// team, which a thread started for each call would start afresh (on two threads, 16 real 20 × 20 took
// longer than on one). A task runs on an idle worker, or on a new one where none is idle (calls from
// several Python threads at once). The pool is never destroyed (idle workers still wait at exit), and
// a process forked from this one starts a pool of its own: the parent's workers are not in it.
class long_run_workers {
 public:
  // (interruptible calls it with the GIL held: one caller at a time replaces a forked pool)
  static void start(std::function<void()> task) {
    static long_run_workers* pool = new long_run_workers;
    if (pool->owner_ != getpid()) pool = new long_run_workers;  // the parent's mutex and threads stay behind
    pool->post(std::move(task));
  }

 private:
  struct worker {
    std::function<void()> task;
    std::condition_variable ready;
  };
  const pid_t owner_ = getpid();
  std::mutex lock_;
  std::vector<worker*> idle_;

  void post(std::function<void()> task) {
    const std::lock_guard hold(lock_);
    if (idle_.empty()) {
      auto* w = new worker;  // a worker lives as long as the pool
      w->task = std::move(task);
      std::thread([this, w] { serve(w); }).detach();
      return;
    }
    worker* w = idle_.back();
    idle_.pop_back();
    w->task = std::move(task);
    w->ready.notify_one();
  }
  void serve(worker* w) {
    std::unique_lock hold(lock_);
    for (;;) {
      w->ready.wait(hold, [w] { return static_cast<bool>(w->task); });
      std::function<void()> task = std::move(w->task);
      w->task = nullptr;
      hold.unlock();
      task();
      task = nullptr;  // its captures released before the worker is idle again
      hold.lock();
      idle_.push_back(w);
    }
  }
};

// f(progress) with the GIL released. On a worker thread (`long_run`), this thread wakes every 50 ms
// to let Python's signal handlers run: a KeyboardInterrupt asks the engines to stop and is raised.
template <class F>
auto interruptible(bool long_run, const F& f) {
  using result = decltype(f(std::declval<sparseperm::progress_counter&>()));
  sparseperm::progress_counter progress;
  if (!long_run) {
    try {
      nb::gil_scoped_release release;
      return f(progress);
    } catch (...) {
      if (PyErr_CheckSignals() != 0) throw nb::python_error();  // see below
      throw;
    }
  }
  // shared with the worker, which may still be leaving `lock` when this thread sees `done`
  struct outcome {
    std::optional<result> out;
    std::exception_ptr failure;
    std::mutex lock;
    std::condition_variable changed;
    bool done = false;
  };
  const auto shared = std::make_shared<outcome>();
  bool interrupted = false;
  long_run_workers::start([shared, &f, &progress] {
    try {
      shared->out.emplace(f(progress));
    } catch (...) {
      shared->failure = std::current_exception();
    }
    const std::lock_guard hold(shared->lock);
    shared->done = true;
    shared->changed.notify_all();
  });
  {
    nb::gil_scoped_release release;
    std::unique_lock hold(shared->lock);
    while (!shared->changed.wait_for(hold, std::chrono::milliseconds(50), [&] { return shared->done; })) {
      hold.unlock();
      {
        nb::gil_scoped_acquire acquire;
        if (!interrupted && PyErr_CheckSignals() != 0) {
          interrupted = true;  // the exception stays set until this call returns
          progress.stop.store(true);
        }
      }
      hold.lock();
    }
  }
  // a compile's interrupt_scope (module/process.cuh) takes a Ctrl-C itself, stops the compiler and
  // raises the signal again once done: Python's handler runs here, so that one KeyboardInterrupt is
  // raised, not a second one later in the caller's own except clause
  if (!interrupted && PyErr_CheckSignals() != 0) interrupted = true;
  if (interrupted) throw nb::python_error();
  if (shared->failure) std::rethrow_exception(shared->failure);
  return std::move(*shared->out);
}

constexpr int long_run_size = 20;  // below, a Ryser run is milliseconds: no worker thread

// Whether a batch's Ryser steps (2^(n−1) a matrix, n rows each) may take long enough that a Ctrl-C
// should reach it while it runs: 2^28 row steps, about 30 ms on one core in the lanes (0.1 ns a row
// step at n = 12) and a few tenths of a second in double-double. Below that, handing the call to a
// worker costs more than waiting for the end (with a thread started for each call, before the workers
// were kept: 64 real 12 × 12 took 3.7 µs a matrix on one thread and 5.5 on two, against 2.0 and 1.2
// for 63, on a 2-core EPYC).
bool long_batch(double row_steps) { return row_steps >= std::ldexp(1.0, 28); }
double ryser_row_steps(int n) { return n > 0 ? std::ldexp(1.0, n - 1) * n : 0.0; }

// A run so short that releasing the GIL and taking it back would cost more than the run: the
// planner's microsecond paths (auto on n <= 8).
bool brief_run(int n, const door_options& options) {
  return n <= 8 && options.row_multiplicities.empty() && options.column_multiplicities.empty() &&
         automatic_engine(options);
}

// A square array's numbers, row-major (imag empty for a real array).
struct dense_values {
  int n = 0;
  std::vector<double> real, imag;
};

// An integer element of `size` bytes as a double; std::invalid_argument beyond 2^53, where doubles
// no longer hold every integer.
double integer_at(const unsigned char* at, Py_ssize_t size, bool is_signed) {
  const auto read = [at]<class T>(T) {
    T x;
    std::memcpy(&x, at, sizeof x);
    return x;
  };
  constexpr std::int64_t largest = std::int64_t{1} << 53;
  std::int64_t x = 0;
  if (is_signed) {
    x = size == 1   ? read(std::int8_t{})
        : size == 2 ? read(std::int16_t{})
        : size == 4 ? read(std::int32_t{})
                    : read(std::int64_t{});
  } else {
    const std::uint64_t u = size == 1   ? read(std::uint8_t{})
                            : size == 2 ? read(std::uint16_t{})
                            : size == 4 ? read(std::uint32_t{})
                                        : read(std::uint64_t{});
    x = u > static_cast<std::uint64_t>(largest) ? largest + 1 : static_cast<std::int64_t>(u);
  }
  if (x > largest || x < -largest)
    throw std::invalid_argument("an integer entry is beyond 2^53, which a double does not hold exactly");
  return static_cast<double>(x);
}

// The numbers of a 2-D array of float64, complex128, integers or bools, read through the buffer
// protocol with its strides; nullopt for any other object or element type (the package converts
// those). std::invalid_argument for a non-square shape and for integers a double does not hold.
std::optional<dense_values> read_dense_values(nb::handle array) {
  Py_buffer view;
  if (PyObject_GetBuffer(array.ptr(), &view, PyBUF_RECORDS_RO) != 0) {
    PyErr_Clear();
    return std::nullopt;
  }
  const std::unique_ptr<Py_buffer, void (*)(Py_buffer*)> release(&view, PyBuffer_Release);
  std::string_view format = view.format != nullptr ? view.format : "B";
  if (!format.empty() &&
      (format[0] == '@' || format[0] == '=' || (format[0] == '<' && std::endian::native == std::endian::little))) {
    format.remove_prefix(1);
  }
  enum class kind { real, complex, signed_integer, unsigned_integer };
  kind k;
  if (format == "d" && view.itemsize == 8) {
    k = kind::real;
  } else if (format == "Zd" && view.itemsize == 16) {
    k = kind::complex;
  } else if (format.size() == 1 && std::string_view("bhilq").find(format[0]) != std::string_view::npos) {
    k = kind::signed_integer;
  } else if (format.size() == 1 && std::string_view("?BHILQ").find(format[0]) != std::string_view::npos) {
    k = kind::unsigned_integer;
  } else {
    return std::nullopt;
  }
  const bool integer = k == kind::signed_integer || k == kind::unsigned_integer;
  if (view.ndim != 2 ||
      (integer && view.itemsize != 1 && view.itemsize != 2 && view.itemsize != 4 && view.itemsize != 8))
    return std::nullopt;
  if (view.shape[0] != view.shape[1]) {
    throw std::invalid_argument("the matrix is " + std::to_string(view.shape[0]) + " x " +
                                std::to_string(view.shape[1]) + ": not square");
  }
  check_size(view.shape[0]);  // before the copy
  dense_values values;
  values.n = static_cast<int>(view.shape[0]);
  const std::size_t n = static_cast<std::size_t>(view.shape[0]);
  values.real.resize(n * n);
  if (k == kind::complex) values.imag.resize(n * n);
  const auto* base = static_cast<const unsigned char*>(view.buf);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      const unsigned char* at =
          base + static_cast<Py_ssize_t>(i) * view.strides[0] + static_cast<Py_ssize_t>(j) * view.strides[1];
      double& out = values.real[i * n + j];
      if (k == kind::real) {
        std::memcpy(&out, at, sizeof out);
      } else if (k == kind::complex) {
        std::memcpy(&out, at, sizeof out);
        std::memcpy(&values.imag[i * n + j], at + sizeof(double), sizeof(double));
      } else {
        out = integer_at(at, view.itemsize, k == kind::signed_integer);
      }
    }
  }
  return values;
}

// The Python exception of a library error: EngineUnavailableError for an engine this machine lacks,
// OverflowError, KeyboardInterrupt, SparsepermError for a run that failed; ValueError for a bad matrix
// or option. A batch's failing matrix is its own error's type with the batch's message ("matrix K: ").
PyObject* exception_type(const std::exception_ptr& p) {
  try {
    std::rethrow_exception(p);
  } catch (const sparseperm::batch_error& e) {
    return e.cause() ? exception_type(e.cause()) : sparseperm_error;
  } catch (const sparseperm::engine_error& e) {
    switch (e.reason()) {
      case sparseperm::engine_error::kind::unavailable:
        return unavailable_error;
      case sparseperm::engine_error::kind::overflow:
        return PyExc_OverflowError;
      case sparseperm::engine_error::kind::interrupted:
        return PyExc_KeyboardInterrupt;
      case sparseperm::engine_error::kind::failed:
        return sparseperm_error;
      default:
        return PyExc_ValueError;
    }
  } catch (const sparseperm::input_error&) {
    return PyExc_ValueError;
  } catch (const std::invalid_argument&) {
    return PyExc_ValueError;
  } catch (...) {
    return nullptr;  // not the library's: nanobind's own translation
  }
}

void register_exceptions(nb::module_& m) {
  sparseperm_error = PyErr_NewException("sparseperm.SparsepermError", PyExc_RuntimeError, nullptr);
  unavailable_error = PyErr_NewException("sparseperm.EngineUnavailableError", sparseperm_error, nullptr);
  m.attr("SparsepermError") = nb::handle(sparseperm_error);
  m.attr("EngineUnavailableError") = nb::handle(unavailable_error);
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    PyObject* type = exception_type(p);
    if (type == nullptr) std::rethrow_exception(p);
    try {
      std::rethrow_exception(p);
    } catch (const std::exception& e) {
      PyErr_SetString(type, e.what());
    }
  });
}

// One dense n × n matrix (row-major; imag null for a real one) computed with the GIL released, on a
// worker thread where it may run long; a brief run (brief_run) keeps the GIL.
result_record dense_result(int n, const double* real, const double* imag, const door_options& options) {
  const auto run = [&](sparseperm::progress_counter& p) { return compute_dense(n, real, imag, options, &p); };
  if (brief_run(n, options)) return result_record{compute_dense(n, real, imag, options, nullptr)};
  return result_record{interruptible(n >= long_run_size || !options.row_multiplicities.empty(), run)};
}

void define_computing(nb::module_& m) {
  nb::class_<result_record>(m, "_Record")
      .def("summary", [](const result_record& r) { return summary_of(r.result); })
      .def("details", [](const result_record& r) { return details_of(r.result); })
      .def("dict", [](const result_record& r) { return to_dict(r.result); });
  nb::class_<door_options>(m, "_Options")
      .def(
          "__init__",
          [](door_options* self, std::string engine, std::string precision, std::string threads, std::string devices,
             std::string time_limit, std::vector<int> rows, std::vector<int> cols, std::string include_dir,
             std::string digits) {
            door_options options{std::move(engine),  std::move(precision),   std::move(threads),
                                 std::move(devices), std::move(time_limit),  std::move(rows),
                                 std::move(cols),    std::move(include_dir), std::move(digits)};
            read_settings(options);  // a bad setting raises here, before the object exists
            new (self) door_options(std::move(options));
          },
          nb::arg("engine"), nb::arg("precision"), nb::arg("threads"), nb::arg("devices"), nb::arg("time_limit"),
          nb::arg("rows"), nb::arg("cols"), nb::arg("include_dir"), nb::arg("digits") = "");
  m.def(
      "compute",
      [](int n, const index_array& rows, const index_array& columns, const value_array& real,
         const std::optional<value_array>& imag, const door_options& options) {
        const door_matrix matrix = to_matrix(n, rows, columns, real, imag);
        return result_record{
            interruptible(n >= long_run_size || !options.row_multiplicities.empty(),
                          [&](sparseperm::progress_counter& p) { return compute(matrix, options, p); })};
      },
      nb::arg("n"), nb::arg("rows"), nb::arg("cols"), nb::arg("real"), nb::arg("imag").none(), nb::arg("options"));
  // A 2-D numpy array of float64, complex128, integers or bools, read in place through the buffer
  // protocol, any strides (nanobind's ndarray import goes through DLPack: a capsule and a managed
  // tensor a call, much of a 4 × 4 call's time); None for any other array (the package converts it).
  m.def(
      "compute_array",
      [](nb::handle array, const door_options& options) -> std::optional<result_record> {
        std::optional<dense_values> values = read_dense_values(array);
        if (!values) return std::nullopt;
        return dense_result(values->n, values->real.data(), values->imag.empty() ? nullptr : values->imag.data(),
                            options);
      },
      nb::arg("array"), nb::arg("options"));
}

void define_batches(nb::module_& m) {
  using results = sparseperm::permanent_results;
  nb::class_<batch_records>(m, "BatchRecords")
      .def("__len__", [](const batch_records& b) { return b.results.size(); })
      .def("record",
           [](const batch_records& b, std::size_t k) {
             if (k >= b.results.size()) throw nb::index_error("batch index out of range");
             return result_record{b.results[k]};
           })
      .def("value",
           [](const batch_records& b) {
             return column_of<double>(b, [](const results& r, std::size_t k) { return r.value(k); });
           })
      .def("imag",
           [](const batch_records& b) {
             return column_of<double>(b, [](const results& r, std::size_t k) { return r.imag(k); });
           })
      .def("error_bound",
           [](const batch_records& b) {
             return column_of<double>(b,
                                      [](const results& r, std::size_t k) { return r.error_bound(k).value_or(0.0); });
           })
      .def("exact",
           [](const batch_records& b) {
             return column_of<bool>(b, [](const results& r, std::size_t k) { return r.exact(k); });
           })
      .def("complex",
           [](const batch_records& b) {
             return column_of<bool>(b, [](const results& r, std::size_t k) { return r.complex(k); });
           })
      .def("in_range", [](const batch_records& b) {
        return column_of<bool>(b, [](const results& r, std::size_t k) { return r.in_range(k); });
      });
  m.def(
      "compute_batch",
      [](const nb::list& items, const door_options& options) {
        std::vector<door_matrix> matrices;
        matrices.reserve(nb::len(items));
        for (nb::handle item : items) {
          const nb::tuple t = nb::cast<nb::tuple>(item);
          matrices.push_back(to_matrix(nb::cast<int>(t[0]), nb::cast<index_array>(t[1]), nb::cast<index_array>(t[2]),
                                       nb::cast<value_array>(t[3]), nb::cast<std::optional<value_array>>(t[4])));
        }
        double row_steps = 0;
        for (const door_matrix& m : matrices) row_steps += ryser_row_steps(m.n);
        return batch_records{interruptible(long_batch(row_steps), [&](sparseperm::progress_counter& p) {
          return compute_batch(matrices, options, p);
        })};
      },
      nb::arg("items"), nb::arg("options"));
  m.def(
      "compute_dense_batch",
      // values: float64 of shape (B, n, n), or complex128's float64 view (B, n, 2n), read in place
      [](const dense_batch& values, bool complex, const door_options& options) {
        const int batch = static_cast<int>(values.shape(0)), n = static_cast<int>(values.shape(1));
        if (values.shape(2) != values.shape(1) * (complex ? 2 : 1))
          throw std::invalid_argument("the matrices are not square");
        const double* real = values.data();
        const bool long_run = n >= long_run_size || long_batch(batch * ryser_row_steps(n));
        return batch_records{interruptible(long_run, [&](sparseperm::progress_counter& p) {
          return compute_dense_batch(batch, n, real, complex ? real + 1 : nullptr, complex ? 2 : 1, options, p);
        })};
      },
      nb::arg("values"), nb::arg("complex"), nb::arg("options"));
}

nb::dict inspection_dict(const door_inspection& in) {
  nb::dict d;
  d["n"] = in.n;
  d["nnz"] = in.nnz;
  d["engine"] = in.engines;
  d["plan"] = in.plan;
  nb::list blocks;
  for (const door_block& b : in.blocks) {
    nb::dict block;
    block["n"] = b.n;
    block["nnz"] = b.nnz;
    block["engine"] = b.engine;
    nb::dict estimates;
    for (const door_estimate& e : b.estimates) {
      nb::dict one;
      one["seconds"] = e.possible ? nb::object(nb::float_(e.seconds)) : nb::none();
      one["note"] = e.why;
      estimates[e.engine.c_str()] = one;
    }
    block["estimates"] = estimates;
    blocks.append(block);
  }
  d["blocks"] = blocks;
  return d;
}

void define_looking(nb::module_& m) {
  m.def("read_mtx", [](const std::string& path) {
    const door_matrix matrix = read_matrix_market_file(path);
    const auto array = [](const auto& values) {
      using T = typename std::decay_t<decltype(values)>::value_type;
      T* data = new T[values.size()];
      std::memcpy(data, values.data(), values.size() * sizeof(T));
      nb::capsule owner(data, [](void* q) noexcept { delete[] static_cast<T*>(q); });
      return nb::ndarray<nb::numpy, T, nb::ndim<1>>(data, {values.size()}, owner);
    };
    return nb::make_tuple(matrix.n, array(matrix.rows), array(matrix.columns), array(matrix.real),
                          matrix.imag.empty() ? nb::none() : nb::object(nb::cast(array(matrix.imag))));
  });
  m.def(
      "inspect",
      [](int n, const index_array& rows, const index_array& columns, const value_array& real,
         const std::optional<value_array>& imag, const door_options& options) {
        return inspection_dict(inspect(to_matrix(n, rows, columns, real, imag), options));
      },
      nb::arg("n"), nb::arg("rows"), nb::arg("cols"), nb::arg("real"), nb::arg("imag").none(), nb::arg("options"));
  m.def("engines", [](const door_options& options) {
    nb::list out;
    for (const door_engine& e : engines(options)) out.append(nb::make_tuple(e.name, e.summary, e.available, e.why));
    return out;
  });
  m.def("has_cuda_build", &has_cuda_build);
}

}  // namespace

NB_MODULE(_sparseperm, m) {
  m.doc() = "sparseperm's extension module; use the package `sparseperm`.";
  register_exceptions(m);
  define_computing(m);
  define_batches(m);
  define_looking(m);
}
