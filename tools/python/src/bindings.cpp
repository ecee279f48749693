// sparseperm._sparseperm: the extension module behind the Python package (sparseperm/__init__.py
// turns Python inputs into coordinates and results into Python numbers). The computation runs with
// the GIL released; a long one runs on a worker thread while this thread looks for Ctrl-C.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

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

nb::dict to_dict(const door_result& r) {
  nb::dict d;
  d["permanent"] = r.permanent;
  d["permanent_imag"] = r.permanent_imag;
  d["value"] = r.value;
  d["imag"] = r.imag;
  d["exact"] = r.exact;
  d["complex"] = r.complex;
  d["error_bound"] = r.has_error_bound ? nb::object(nb::float_(r.error_bound)) : nb::none();
  d["scale_exponent"] = r.scale_exponent;
  d["scaled_value"] = r.scaled_value;
  d["scaled_imag"] = r.scaled_imag;
  d["scaled_error_bound"] = r.scaled_error_bound;
  d["engine"] = r.engine;
  d["plan"] = r.plan;
  d["n"] = r.n;
  d["nnz"] = r.nnz;
  d["threads"] = r.threads;
  nb::dict seconds;
  seconds["plan"] = r.seconds_plan;
  seconds["codegen"] = r.seconds_codegen;
  seconds["compile"] = r.seconds_compile;
  seconds["compute"] = r.seconds_compute;
  seconds["total"] = r.seconds_total;
  d["seconds"] = seconds;
  return d;
}

// A batch's results, kept in C++: a sampler's million matrices become numpy arrays in one pass, and
// a result's dict (Result) only where Python asks for that one.
struct batch_records {
  std::vector<door_result> results;
};

template <class T, class Field>
nb::ndarray<nb::numpy, T, nb::ndim<1>> column_of(const batch_records& b, const Field& field) {
  const std::size_t count = b.results.size();
  T* data = new T[count > 0 ? count : 1];
  for (std::size_t k = 0; k < count; ++k) data[k] = field(b.results[k]);
  nb::capsule owner(data, [](void* q) noexcept { delete[] static_cast<T*>(q); });
  return nb::ndarray<nb::numpy, T, nb::ndim<1>>(data, {count}, owner);
}

// f(progress) with the GIL released. On a worker thread (`long_run`), this thread wakes every 50 ms
// to let Python's signal handlers run: a KeyboardInterrupt asks the engines to stop and is raised.
template <class F>
auto interruptible(bool long_run, const F& f) {
  using result = decltype(f(std::declval<sparseperm::progress_counter&>()));
  sparseperm::progress_counter progress;
  if (!long_run) {
    nb::gil_scoped_release release;
    return f(progress);
  }
  std::optional<result> out;
  std::exception_ptr failure;
  std::mutex lock;
  std::condition_variable changed;
  bool done = false, interrupted = false;
  std::thread worker([&] {
    try {
      out.emplace(f(progress));
    } catch (...) {
      failure = std::current_exception();
    }
    const std::lock_guard hold(lock);
    done = true;
    changed.notify_all();
  });
  {
    nb::gil_scoped_release release;
    std::unique_lock hold(lock);
    while (!changed.wait_for(hold, std::chrono::milliseconds(50), [&] { return done; })) {
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
  worker.join();
  if (interrupted) throw nb::python_error();
  if (failure) std::rethrow_exception(failure);
  return std::move(*out);
}

door_options make_options(const std::string& engine, const std::string& precision, int threads,
                          const std::string& devices, double time_limit, std::vector<int> rows, std::vector<int> cols,
                          const std::string& include_dir) {
  door_options o;
  o.engine = engine;
  o.precision = precision;
  o.threads = threads;
  o.devices = devices;
  o.time_limit_seconds = time_limit;
  o.row_multiplicities = std::move(rows);
  o.column_multiplicities = std::move(cols);
  o.include_dir = include_dir;
  return o;
}

constexpr int long_run_size = 20;  // below, a Ryser run is milliseconds: no worker thread

}  // namespace

NB_MODULE(_sparseperm, m) {
  m.doc() = "sparseperm's extension module; use the package `sparseperm`.";
  sparseperm_error = PyErr_NewException("sparseperm.SparsepermError", PyExc_RuntimeError, nullptr);
  unavailable_error = PyErr_NewException("sparseperm.EngineUnavailableError", sparseperm_error, nullptr);
  m.attr("SparsepermError") = nb::handle(sparseperm_error);
  m.attr("EngineUnavailableError") = nb::handle(unavailable_error);
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const door_error& e) {
      PyObject* type = PyExc_ValueError;
      switch (e.reason()) {
        case door_error::kind::unavailable:
          type = unavailable_error;
          break;
        case door_error::kind::overflow:
          type = PyExc_OverflowError;
          break;
        case door_error::kind::interrupted:
          type = PyExc_KeyboardInterrupt;
          break;
        case door_error::kind::failed:
          type = sparseperm_error;
          break;
        default:
          break;
      }
      PyErr_SetString(type, e.what());
    }
  });

  nb::class_<door_options>(m, "_Options")
      .def(
          "__init__",
          [](door_options* self, const std::string& engine, const std::string& precision, int threads,
             const std::string& devices, double time_limit, std::vector<int> rows, std::vector<int> cols,
             const std::string& include_dir) {
            new (self) door_options(make_options(engine, precision, threads, devices, time_limit, std::move(rows),
                                                 std::move(cols), include_dir));
          },
          nb::arg("engine"), nb::arg("precision"), nb::arg("threads"), nb::arg("devices"), nb::arg("time_limit"),
          nb::arg("rows"), nb::arg("cols"), nb::arg("include_dir"));

  m.def(
      "compute",
      [](int n, const index_array& rows, const index_array& columns, const value_array& real,
         const std::optional<value_array>& imag, const door_options& options) {
        const door_matrix matrix = to_matrix(n, rows, columns, real, imag);
        return to_dict(interruptible(n >= long_run_size || !options.row_multiplicities.empty(),
                                     [&](sparseperm::progress_counter& p) { return compute(matrix, options, p); }));
      },
      nb::arg("n"), nb::arg("rows"), nb::arg("cols"), nb::arg("real"), nb::arg("imag").none(), nb::arg("options"));

  nb::class_<batch_records>(m, "BatchRecords")
      .def("__len__", [](const batch_records& b) { return b.results.size(); })
      .def("record",
           [](const batch_records& b, std::size_t k) {
             if (k >= b.results.size()) throw nb::index_error("batch index out of range");
             return to_dict(b.results[k]);
           })
      .def("value",
           [](const batch_records& b) { return column_of<double>(b, [](const door_result& r) { return r.value; }); })
      .def("imag",
           [](const batch_records& b) { return column_of<double>(b, [](const door_result& r) { return r.imag; }); })
      .def("error_bound",
           [](const batch_records& b) {
             return column_of<double>(b, [](const door_result& r) { return r.has_error_bound ? r.error_bound : 0.0; });
           })
      .def("exact",
           [](const batch_records& b) { return column_of<bool>(b, [](const door_result& r) { return r.exact; }); })
      .def("complex",
           [](const batch_records& b) { return column_of<bool>(b, [](const door_result& r) { return r.complex; }); })
      .def("in_range", [](const batch_records& b) {
        return column_of<bool>(b, [](const door_result& r) { return r.scale_exponent == 0; });
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
        return batch_records{
            interruptible(true, [&](sparseperm::progress_counter& p) { return compute_batch(matrices, options, p); })};
      },
      nb::arg("items"), nb::arg("options"));

  m.def(
      "compute_dense_batch",
      [](const dense_batch& real, const std::optional<dense_batch>& imag, const door_options& options) {
        const int batch = static_cast<int>(real.shape(0)), n = static_cast<int>(real.shape(1));
        if (real.shape(2) != real.shape(1))
          throw door_error(door_error::kind::bad_input, "the matrices are not square");
        if (imag &&
            (imag->shape(0) != real.shape(0) || imag->shape(1) != real.shape(1) || imag->shape(2) != real.shape(2)))
          throw door_error(door_error::kind::bad_input, "the imaginary parts' shape differs");
        const double* im = imag ? imag->data() : nullptr;
        return batch_records{interruptible(batch >= 64 || n >= long_run_size, [&](sparseperm::progress_counter& p) {
          return compute_dense_batch(batch, n, real.data(), im, options, p);
        })};
      },
      nb::arg("real"), nb::arg("imag").none(), nb::arg("options"));

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
        const door_inspection in = inspect(to_matrix(n, rows, columns, real, imag), options);
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
      },
      nb::arg("n"), nb::arg("rows"), nb::arg("cols"), nb::arg("real"), nb::arg("imag").none(), nb::arg("options"));

  m.def("engines", [](const door_options& options) {
    nb::list out;
    for (const door_engine& e : engines(options)) out.append(nb::make_tuple(e.name, e.summary, e.available, e.why));
    return out;
  });
  m.def("has_cuda_build", &has_cuda_build);
}
