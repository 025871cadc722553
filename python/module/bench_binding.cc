// SPDX-License-Identifier: MIT
// ropecheck.bench on a Python callable (or a built-in kernel): the definitions of python/module/bench_binding.h.
#include "python/module/bench_binding.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <sstream>
#include <string>
#include <vector>

#include "core/config/config.h"
#include "core/config/model_rope.h"
#include "core/isolation/call_timing.h"
#include "core/kernel/impl_validation.h"
#include "python/module/kernel_declaration.h"
#include "ropecheck/names.h"
#include "speed/bench_json.h"
#include "speed/bench_run.h"
#include "speed/bench_table.h"
#include "speed/machine_info.h"

namespace ropecheck::python {
namespace {

py::dict series_dict(const speed::SeriesStats& s) {
  py::dict d;
  d["median_seconds"] = s.median;
  d["min_seconds"] = s.min;
  d["q1_seconds"] = s.q1;
  d["q3_seconds"] = s.q3;
  d["bytes"] = s.bytes;
  d["gbps"] = s.gbps();
  d["calls"] = s.seconds.size();
  return d;
}

py::dict row_dict(const speed::BenchRow& r) {
  py::dict d;
  d["name"] = r.name();
  d["model"] = r.model;
  d["step"] = speed::step_name(r.step);
  d["tokens"] = r.tokens;
  d["dtype"] = std::string(dtype_name(r.choice.dtype));
  d["layout"] = std::string(layout_name(r.choice.layout));
  d["threads"] = r.choice.threads;
  d["status"] = speed::row_status_name(r.status);
  d["reason"] = r.reason;
  d["judged"] = r.judged;
  d["kernel"] = series_dict(r.kernel);
  d["memcpy"] = series_dict(r.copy);
  d["in_place_pass"] = series_dict(r.rmw);
  const bool timed = r.status == speed::RowStatus::kTimed;
  d["ratio_to_memcpy"] = timed ? r.ratio_to(r.copy) : 0.0;
  d["ratio_to_in_place_pass"] = timed ? r.ratio_to(r.rmw) : 0.0;
  return d;
}

template <class T>
T checked(T v, T lo, T hi, const char* what) {
  if (v < lo || v > hi)
    throw py::value_error(std::string(what) + ": must be in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                          "] (got " + std::to_string(v) + ")");
  return v;
}

}  // namespace

void bind_bench(py::module_& m) {
  m.def(
      "bench",
      [](py::object fn, const std::string& name, const py::dict& declaration, const std::string& config_json,
         const std::string& config_name, const std::vector<std::string>& steps, std::int64_t prefill_tokens,
         std::int64_t decode_tokens, const std::vector<int>& threads, int repetitions, int judged, bool cold,
         std::uint64_t seed) {
        speed::BenchOptions o;
        try {
          o.models.push_back(speed::bench_model(config_name, parse_model_rope(config_json)));
        } catch (const ref::ConfigError& e) {
          throw py::value_error(std::string("config: ") + e.what());
        }
        if (steps.empty()) throw py::value_error("steps: name at least one of 'prefill', 'decode'");
        for (const std::string& s : steps) {
          if (s == "prefill")
            o.shapes.push_back({speed::Step::kPrefill, checked<std::int64_t>(prefill_tokens, 1, 1 << 20, "prefill_tokens")});
          else if (s == "decode")
            o.shapes.push_back({speed::Step::kDecode, checked<std::int64_t>(decode_tokens, 1, 1 << 20, "decode_tokens")});
          else
            throw py::value_error("steps: unknown step '" + s + "' (prefill, decode)");
        }
        if (threads.empty()) throw py::value_error("threads: name at least one thread count");
        for (int t : threads) checked(t, 1, 256, "threads");
        o.threads = threads;
        o.repetitions = checked(repetitions, 2, 100000, "repetitions");
        o.judged = checked(judged, 0, 100000, "judge");  // 0: every timed call
        if (cold && !can_flush_caches())
          throw py::value_error("cold: this build cannot flush cache lines on this CPU architecture");
        o.caches = cold ? CacheState::kCold : CacheState::kWarm;
        o.seed = seed;
        o.isolated = false;  // a Python kernel runs in this process (python_kernel.h)
        PythonKernel kernel(fn, declared_kernel(fn, name, declaration));
        if (const std::string bad = validate_impl_table(kernel.table()); !bad.empty())
          throw py::value_error("the kernel's declaration: " + bad);
        const auto start = std::chrono::steady_clock::now();
        const std::string load_before = speed::load_averages();
        speed::BenchReport r = speed::run_bench({kernel.table()}, o);  // Python errors propagate
        r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        r.machine = speed::machine_description();
        r.date = speed::utc_date_time();
        r.load_before = load_before;
        r.load_after = speed::load_averages();
        py::dict d;
        d["passed"] = r.passed();
        py::list rows;
        for (const speed::BenchRow& row : r.rows) rows.append(row_dict(row));
        d["rows"] = rows;
        py::list impl_failures;
        for (const auto& [impl, why] : r.impl_failures) impl_failures.append(py::make_tuple(impl, why));
        d["impl_failures"] = impl_failures;
        std::ostringstream table;
        speed::print_bench(r, table);
        d["table"] = table.str();
        d["json"] = speed::bench_to_json(r);
        d["errors"] = kernel.tracebacks();
        d["seconds"] = r.seconds;
        return d;
      },
      py::arg("fn"), py::kw_only(), py::arg("name"), py::arg("declaration"), py::arg("config_json"),
      py::arg("config_name"), py::arg("steps"), py::arg("prefill_tokens"), py::arg("decode_tokens"),
      py::arg("threads"), py::arg("repetitions"), py::arg("judge"), py::arg("cold"), py::arg("seed"));
}

}  // namespace ropecheck::python
