// The sweep file read strictly and expanded into points (spec.hpp; format: docs/sweeps.md).
#include "cosim/sweep/spec.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <system_error>

#include <nlohmann/json.hpp>

#include "cosim/dynamics/params.hpp"
#include "cosim/dynamics/registry/registry.hpp"
#include "cosim/scene/scene_locator.hpp"
#include "cosim/util/text.hpp"

namespace cosim::sweep {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// One axis: its keys and, per step, one value per key (a zip and cases have several keys; a
// case that leaves a key out has no value for it: the base value or the backend's default).
struct Axis {
  std::vector<std::string> keys;
  std::vector<std::vector<std::optional<Value>>> steps;
};

// "point p0003 (backend robotino, mass_kg=2000)": a point by its id and its swept values.
std::string describe_point(const Spec& spec, const Point& p) {
  std::string text = "point " + p.id + " (backend " + p.backend;
  for (const std::string& key : spec.swept) {
    if (key != "backend" && p.params.count(key)) text += ", " + key + "=" + value_text(p.params.at(key));
  }
  return text + ")";
}

// A point's identity apart from its id: backend, repetition and every value (exact texts).
std::string point_key(const std::string& backend, int repetition, const std::map<std::string, Value>& params) {
  std::string key = backend + '\n' + std::to_string(repetition);
  for (const auto& [k, v] : params) key += '\n' + k + '=' + value_text(v);
  return key;
}

constexpr std::pair<const char*, ColumnMetric::Stat> kStats[] = {
    {"initial", ColumnMetric::Stat::initial}, {"final", ColumnMetric::Stat::final},
    {"min", ColumnMetric::Stat::min},         {"max", ColumnMetric::Stat::max},
    {"max_abs", ColumnMetric::Stat::max_abs}, {"mean", ColumnMetric::Stat::mean},
    {"rms", ColumnMetric::Stat::rms},         {"integral", ColumnMetric::Stat::integral},
    {"first_nonzero_t", ColumnMetric::Stat::first_nonzero_t}, {"count_nonzero", ColumnMetric::Stat::count_nonzero},
};

// A side value, swept like a parameter but passed to the launcher: with the recorder, "fps"
// and "mode" are the co-simulation's own (--fps, --mode), not the backend's.
void check_side_value(const Spec& spec, const Point& p, const std::string& key, const Value& v) {
  const std::string where = spec.file.string() + ": " + describe_point(spec, p) + ": " + key;
  if (!spec.recorder) throw util::BadInputError(where + ": a setting of the recorder's points; add \"recorder\": {}");
  if (key == "fps") {
    const double* fps = std::get_if<double>(&v);
    if (fps == nullptr || !(*fps >= 0.01 && *fps <= 10000)) {
      throw util::BadInputError(where + ": expected frames per second in [0.01, 10000]");
    }
  } else {
    const std::string* mode = std::get_if<std::string>(&v);
    if (mode == nullptr || (*mode != "lockstep" && *mode != "free" && *mode != "realtime")) {
      throw util::BadInputError(where + ": expected \"lockstep\", \"free\" or \"realtime\"");
    }
  }
}

class SpecReader {
 public:
  SpecReader(const json& root, fs::path file) : root_(root), file_(std::move(file)) {}
  Spec read();

 private:
  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw util::BadInputError(file_.string() + ": " + where + ": " + what);
  }
  void only_keys(const json& object, const std::string& where, std::initializer_list<const char*> allowed) const;
  double number(const json& v, const std::string& where) const;
  Value value(const json& v, const std::string& where) const;
  Axis axis(const json& a, const std::string& where);
  std::vector<Value> param_values(const json& a, const std::string& where) const;
  void note_key(const std::string& key, const std::string& where);
  ColumnMetric metric(const json& m, const std::string& where, const Spec& spec) const;

  const json& root_;
  fs::path file_;
  std::set<std::string> keys_;  // every key an axis or the samples vary
  std::set<std::string> case_keys_;  // those a cases axis varies: a base value is their default
  std::vector<std::string> order_;
};

void SpecReader::only_keys(const json& object, const std::string& where, std::initializer_list<const char*> allowed) const {
  if (!object.is_object()) fail(where, "expected an object {...}");
  for (const auto& [key, _] : object.items()) {
    bool known = false;
    std::string list;
    for (const char* a : allowed) {
      known = known || key == a;
      list += (list.empty() ? "" : ", ") + std::string(a);
    }
    if (!known) fail(where.empty() ? key : where + "." + key, "unknown key (allowed: " + list + ")");
  }
}

double SpecReader::number(const json& v, const std::string& where) const {
  if (!v.is_number()) fail(where, "expected a number, got " + v.dump());
  const double d = v.get<double>();
  if (!std::isfinite(d)) fail(where, "expected a finite number");
  return d;
}

Value SpecReader::value(const json& v, const std::string& where) const {
  if (v.is_string()) return v.get<std::string>();
  return number(v, where);
}

void SpecReader::note_key(const std::string& key, const std::string& where) {
  if (key.empty()) fail(where, "an empty parameter name");
  if (!keys_.insert(key).second) fail(where, "parameter '" + key + "' is varied twice");
  order_.push_back(key);
}

// An axis's values: "values": [...], "linspace": [from, to, count], "logspace": [from, to, count].
std::vector<Value> SpecReader::param_values(const json& a, const std::string& where) const {
  const int forms = static_cast<int>(a.contains("values")) + static_cast<int>(a.contains("linspace")) +
                    static_cast<int>(a.contains("logspace"));
  if (forms != 1) fail(where, "give exactly one of \"values\", \"linspace\", \"logspace\"");
  std::vector<Value> out;
  if (a.contains("values")) {
    const json& values = a.at("values");
    if (!values.is_array() || values.empty()) fail(where + ".values", "expected a non-empty list");
    for (std::size_t i = 0; i < values.size(); ++i) out.push_back(value(values[i], where + ".values[" + std::to_string(i) + "]"));
    return out;
  }
  const bool log = a.contains("logspace");
  const std::string key = log ? "logspace" : "linspace";
  const json& range = a.at(key);
  if (!range.is_array() || range.size() != 3 || !range[2].is_number_integer() || range[2].get<long long>() < 2 ||
      range[2].get<long long>() > static_cast<long long>(kMaxPoints)) {
    fail(where + "." + key, "expected [from, to, count] with an integer count >= 2");
  }
  const double from = number(range[0], where + "." + key + "[0]"), to = number(range[1], where + "." + key + "[1]");
  const auto count = range[2].get<long long>();
  if (log && !(from > 0 && to > 0)) fail(where + "." + key, "from and to must be > 0 (the values themselves, not exponents)");
  for (long long i = 0; i < count; ++i) {
    const double f = static_cast<double>(i) / static_cast<double>(count - 1);
    // Ends exact; the values between rounded to 15 significant digits, so that a step of
    // 0.1 gives 0.3, not 0.30000000000000004, and a doubling from 1.85 gives 3.7.
    const double raw = log ? from * std::pow(to / from, f) : from + f * (to - from);
    char text[32];
    std::snprintf(text, sizeof text, "%.15g", raw);
    const double v = i == 0 ? from : i == count - 1 ? to : std::strtod(text, nullptr);
    out.emplace_back(std::in_place_index<0>, v);
  }
  return out;
}

Axis SpecReader::axis(const json& a, const std::string& where) {
  if (!a.is_object()) fail(where, "expected an object {...}");
  Axis axis;
  if (a.contains("zip")) {
    only_keys(a, where, {"zip"});
    const json& parts = a.at("zip");
    if (!parts.is_array() || parts.size() < 2) fail(where + ".zip", "expected a list of at least two axes");
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const std::string part_where = where + ".zip[" + std::to_string(i) + "]";
      if (parts[i].contains("zip") || parts[i].contains("cases")) fail(part_where, "a zip or cases inside a zip");
      const Axis part = this->axis(parts[i], part_where);
      if (i > 0 && part.steps.size() != axis.steps.size()) {
        fail(part_where, std::to_string(part.steps.size()) + " values where the first has " +
                             std::to_string(axis.steps.size()) + " (zipped axes go in step)");
      }
      axis.keys.insert(axis.keys.end(), part.keys.begin(), part.keys.end());
      if (i == 0) axis.steps.resize(part.steps.size());
      for (std::size_t s = 0; s < part.steps.size(); ++s) {
        axis.steps[s].insert(axis.steps[s].end(), part.steps[s].begin(), part.steps[s].end());
      }
    }
    return axis;
  }
  if (a.contains("cases")) {
    // {"cases": [{"K": v, ...}, ...]}: named configurations, one point each (a one-at-a-time
    // sensitivity study); a key a case leaves out keeps its base value or the default.
    only_keys(a, where, {"cases"});
    const json& cases = a.at("cases");
    if (!cases.is_array() || cases.empty()) fail(where + ".cases", "expected a non-empty list of {\"NAME\": value, ...}");
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const std::string case_where = where + ".cases[" + std::to_string(i) + "]";
      if (!cases[i].is_object()) fail(case_where, "expected {\"NAME\": value, ...} ({} for the base values)");
      for (const auto& [key, v] : cases[i].items()) {
        if (std::find(axis.keys.begin(), axis.keys.end(), key) == axis.keys.end()) {
          if (key == "backend") fail(case_where + ".backend", "the backend is an axis of its own");
          note_key(key, case_where + "." + key);
          case_keys_.insert(key);
          axis.keys.push_back(key);
        }
      }
    }
    for (std::size_t i = 0; i < cases.size(); ++i) {
      std::vector<std::optional<Value>> step(axis.keys.size());
      for (std::size_t k = 0; k < axis.keys.size(); ++k) {
        if (cases[i].contains(axis.keys[k])) {
          step[k] = value(cases[i].at(axis.keys[k]), where + ".cases[" + std::to_string(i) + "]." + axis.keys[k]);
        }
      }
      axis.steps.push_back(std::move(step));
    }
    return axis;
  }
  if (a.contains("backend")) {
    only_keys(a, where, {"backend"});
    const json& names = a.at("backend");
    if (!names.is_array() || names.empty()) fail(where + ".backend", "expected a non-empty list of backend names");
    note_key("backend", where);
    axis.keys = {"backend"};
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (!names[i].is_string()) fail(where + ".backend[" + std::to_string(i) + "]", "expected a backend name");
      axis.steps.push_back({Value(names[i].get<std::string>())});
    }
    return axis;
  }
  only_keys(a, where, {"param", "values", "linspace", "logspace"});
  if (!a.contains("param") || !a.at("param").is_string()) {
    fail(where, "expected \"param\": \"NAME\" (or \"zip\", \"cases\", \"backend\")");
  }
  const std::string key = a.at("param").get<std::string>();
  note_key(key, where + ".param");
  axis.keys = {key};
  for (Value& v : param_values(a, where)) axis.steps.push_back({std::optional<Value>(std::move(v))});
  return axis;
}

Spec SpecReader::read() {
  only_keys(root_, "", {"backend", "params_file", "params", "duration_s", "output_step_s", "axes", "samples",
                        "repetitions", "metrics", "recorder"});
  Spec spec;
  spec.file = file_;
  if (root_.contains("params_file")) {
    if (!root_.at("params_file").is_string()) fail("params_file", "expected a path");
    const fs::path given = root_.at("params_file").get<std::string>();
    const auto found = scene::find_input_file(given);
    if (!found) {
      std::vector<std::string> places;
      for (const auto& p : scene::input_file_candidates(given)) places.push_back(p.string());
      fail("params_file", "no parameter file at " + util::join(places, " nor "));
    }
    spec.params_file = fs::absolute(*found);
  }
  if (root_.contains("params")) {
    if (!root_.at("params").is_object()) fail("params", "expected {\"NAME\": value, ...}");  // keys: checked per backend below
    for (const auto& [key, v] : root_.at("params").items()) spec.params[key] = value(v, "params." + key);
  }
  for (const char* key : {"duration_s", "output_step_s"}) {
    if (!root_.contains(key)) continue;
    const double v = number(root_.at(key), key);
    if (!(v > 0)) fail(key, "must be > 0");
    (std::string(key) == "duration_s" ? spec.duration_s : spec.output_step_s) = v;
  }
  if (root_.contains("recorder")) {
    const json& r = root_.at("recorder");
    only_keys(r, "recorder", {"fps", "mode"});
    RecorderSide side;
    if (r.contains("fps")) {
      side.fps = number(r.at("fps"), "recorder.fps");
      if (!(side.fps >= 0.01 && side.fps <= 10000)) fail("recorder.fps", "expected frames per second in [0.01, 10000]");
    }
    if (r.contains("mode")) {
      const json& mode = r.at("mode");
      if (!mode.is_string() || (mode != "lockstep" && mode != "free" && mode != "realtime")) {
        fail("recorder.mode", "expected \"lockstep\", \"free\" or \"realtime\"");
      }
      side.mode = mode.get<std::string>();
    }
    spec.recorder = side;
  }
  int repetitions = 1;
  if (root_.contains("repetitions")) {
    const json& r = root_.at("repetitions");
    if (!r.is_number_integer() || r.get<long long>() < 1 || r.get<long long>() > 1000) {
      fail("repetitions", "expected an integer in [1, 1000]");
    }
    repetitions = r.get<int>();
    spec.repetitions = repetitions;
  }

  std::vector<Axis> axes;
  if (root_.contains("axes")) {
    const json& list = root_.at("axes");
    if (!list.is_array()) fail("axes", "expected a list of axes");
    for (std::size_t i = 0; i < list.size(); ++i) axes.push_back(axis(list[i], "axes[" + std::to_string(i) + "]"));
  }
  const bool backend_swept = keys_.count("backend") > 0;
  if (root_.contains("backend") == backend_swept) {
    fail("backend", backend_swept ? "given both as a value and as an axis" : "missing: the backend every point runs");
  }
  if (!backend_swept) {
    if (!root_.at("backend").is_string()) fail("backend", "expected a backend name");
    spec.backends = {root_.at("backend").get<std::string>()};
  }

  // Random samples: "samples": {"count": N, "seed": S, "params": {"K": {"uniform": [a, b]} | {"normal": [mean, sd]}}}.
  std::size_t sample_count = 1;
  std::vector<std::pair<std::string, json>> sampled;
  std::uint64_t seed = 0;
  if (root_.contains("samples")) {
    const json& s = root_.at("samples");
    only_keys(s, "samples", {"count", "seed", "params"});
    if (!s.contains("count") || !s.at("count").is_number_integer() || s.at("count").get<long long>() < 1 ||
        s.at("count").get<long long>() > static_cast<long long>(kMaxPoints)) {
      fail("samples.count", "expected an integer >= 1");
    }
    if (!s.contains("seed") || !s.at("seed").is_number_unsigned()) {
      fail("samples.seed", "expected an integer >= 0 (the same seed gives the same samples)");
    }
    if (!s.contains("params") || !s.at("params").is_object() || s.at("params").empty()) {
      fail("samples.params", "expected {\"NAME\": {\"uniform\": [low, high]} or {\"normal\": [mean, sd]}, ...}");
    }
    sample_count = static_cast<std::size_t>(s.at("count").get<long long>());
    spec.samples = sample_count;
    seed = s.at("seed").get<std::uint64_t>();
    for (const auto& [key, d] : s.at("params").items()) {
      const std::string where = "samples.params." + key;
      note_key(key, where);
      only_keys(d, where, {"uniform", "normal"});
      if (d.size() != 1) fail(where, "expected one distribution: uniform or normal");
      const bool uniform = d.contains("uniform");
      const json& ab = uniform ? d.at("uniform") : d.at("normal");
      const std::string dwhere = where + (uniform ? ".uniform" : ".normal");
      if (!ab.is_array() || ab.size() != 2) fail(dwhere, uniform ? "expected [low, high]" : "expected [mean, sd]");
      const double a = number(ab[0], dwhere + "[0]"), b = number(ab[1], dwhere + "[1]");
      if (uniform ? !(a < b) : !(b > 0)) fail(dwhere, uniform ? "expected low < high" : "expected sd > 0");
      sampled.emplace_back(key, d);
    }
  }

  // The product: the first axis slowest, then the samples, then the repetitions.
  std::size_t total = sample_count * static_cast<std::size_t>(repetitions);
  for (const Axis& a : axes) {
    if (a.steps.size() > kMaxPoints || total > kMaxPoints / a.steps.size()) fail("axes", "more than 1000000 points");
    total *= a.steps.size();
  }
  if (total > kMaxPoints) fail("samples", "more than 1000000 points");
  for (const auto& [key, v] : spec.params) {
    if (keys_.count(key) && !case_keys_.count(key)) fail("params." + key, "also varied by an axis or the samples");
  }
  // Samples drawn once per sample index (so every grid point sees the same samples), from
  // std::mt19937_64 with the seed and the standard library's distributions' formulas done here
  // (uniform: low + (high − low)·u, u in [0, 1) from 53 bits; normal: Box–Muller), which the
  // standard leaves to each library: the same seed gives the same samples everywhere.
  std::vector<std::vector<double>> samples(sample_count);
  {
    std::mt19937_64 rng(seed);
    const auto unit = [&] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };
    for (auto& row : samples) {
      for (const auto& [key, d] : sampled) {
        if (d.contains("uniform")) {
          const double lo = d.at("uniform")[0].get<double>(), hi = d.at("uniform")[1].get<double>();
          row.push_back(lo + (hi - lo) * unit());
        } else {
          const double mean = d.at("normal")[0].get<double>(), sd = d.at("normal")[1].get<double>();
          const double u1 = 1.0 - unit(), u2 = unit();  // u1 in (0, 1]
          row.push_back(mean + sd * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * 3.141592653589793 * u2));
        }
      }
    }
  }
  spec.swept = order_;

  const std::size_t width = std::max<std::size_t>(4, std::to_string(total - 1).size());
  std::vector<std::size_t> index(axes.size(), 0);
  for (std::size_t n = 0; n < total; ++n) {
    // n = ((axis0·|axis1| + axis1)·… )·samples·repetitions + sample·repetitions + repetition
    std::size_t rest = n;
    const int repetition = static_cast<int>(rest % static_cast<std::size_t>(repetitions));
    rest /= static_cast<std::size_t>(repetitions);
    const std::size_t sample = rest % sample_count;
    rest /= sample_count;
    for (std::size_t a = axes.size(); a-- > 0;) {
      index[a] = rest % axes[a].steps.size();
      rest /= axes[a].steps.size();
    }
    Point p;
    char id[32];
    std::snprintf(id, sizeof id, "p%0*zu", static_cast<int>(width), n);
    p.id = id;
    p.repetition = repetition;
    p.params = spec.params;
    p.backend = backend_swept ? std::string() : spec.backends[0];
    for (std::size_t a = 0; a < axes.size(); ++a) {
      for (std::size_t k = 0; k < axes[a].keys.size(); ++k) {
        const std::optional<Value>& v = axes[a].steps[index[a]][k];
        if (!v) continue;  // a case that leaves the key out
        if (axes[a].keys[k] == "backend") {
          p.backend = std::get<std::string>(*v);
        } else {
          p.params[axes[a].keys[k]] = *v;
        }
      }
    }
    for (std::size_t k = 0; k < sampled.size(); ++k) p.params[sampled[k].first] = samples[sample][k];
    spec.points.push_back(std::move(p));
  }
  if (backend_swept) {
    for (const Axis& a : axes) {
      if (a.keys.size() == 1 && a.keys[0] == "backend") {
        for (const auto& step : a.steps) spec.backends.push_back(std::get<std::string>(*step[0]));
      }
    }
  }

  // Every point checked as cosim-dynamics will check it, before anything runs.
  for (const Point& p : spec.points) {
    const auto describe = [&] { return describe_point(spec, p); };
    const dynamics::registry::BackendEntry* entry = nullptr;
    for (const auto& e : dynamics::registry::backend_registry()) {
      if (e.name == p.backend) entry = &e;
    }
    if (entry == nullptr) {
      std::vector<std::string> names;
      for (const auto& e : dynamics::registry::backend_registry()) names.emplace_back(e.name);
      throw util::BadInputError(file_.string() + ": " + describe() + ": no backend '" + p.backend +
                                "' (this build has: " + util::join(names) + ")");
    }
    std::vector<std::string> overrides;
    for (const auto& [key, v] : p.params) {
      if (is_side_key(key)) {
        check_side_value(spec, p, key, v);
      } else {
        overrides.push_back(key + "=" + value_text(v));
      }
    }
    try {
      const auto params = dynamics::Params::resolve(entry->name, entry->param_specs(),
                                                    spec.params_file ? &*spec.params_file : nullptr, overrides);
      // A file a text parameter names must be there, found as cosim-dynamics finds it (as
      // given from the current folder, then under the scenes root).
      for (const auto& ps : entry->param_specs()) {
        if (!ps.text_default || ps.unit != "path" || params.get_text(ps.key).empty()) continue;
        (void)params.input_file(ps.key, "file", &scene::input_file_candidates);
      }
    } catch (const dynamics::ParamError& e) {
      throw util::BadInputError(file_.string() + ": " + describe() + ": " + e.what());
    }
  }

  if (root_.contains("metrics")) {
    const json& list = root_.at("metrics");
    if (!list.is_array()) fail("metrics", "expected a list of {\"name\", \"column\", \"stat\", ...}");
    std::set<std::string> taken{"id", "backend", "repetition", "exit_code", "status", "wall_s", "attempts", "error"};
    for (const char* m : {"max_dev_x_m", "max_dev_y_m", "max_dev_phi_rad", "delay_frames_p50", "delay_frames_max",
                          "delay_sim_s_max", "rtt_us_p50", "rtt_us_p99", "probe_diff_at_arrival_m_max"}) {
      taken.insert(m);
    }
    for (const Point& p : spec.points) {
      for (const auto& [key, _] : p.params) taken.insert(key);
    }
    for (std::size_t i = 0; i < list.size(); ++i) {
      ColumnMetric m = metric(list[i], "metrics[" + std::to_string(i) + "]", spec);
      if (!taken.insert(m.name).second) fail(m.where + ".name", "'" + m.name + "' is already a column of results.csv");
      spec.metrics.push_back(std::move(m));
    }
  }
  return spec;
}

ColumnMetric SpecReader::metric(const json& m, const std::string& where, const Spec& spec) const {
  only_keys(m, where, {"name", "column", "columns", "stat", "from_s", "to_s", "against"});
  ColumnMetric out;
  out.where = where;
  if (!m.contains("name") || !m.at("name").is_string()) fail(where + ".name", "expected the metric's name (its results.csv column)");
  out.name = m.at("name").get<std::string>();
  const bool name_ok = !out.name.empty() && out.name.size() <= 64 && std::all_of(out.name.begin(), out.name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
  });
  if (!name_ok) fail(where + ".name", "expected 1 to 64 letters, digits, '_', '.', '-' (a column and a file name)");
  if (m.contains("column") == m.contains("columns")) fail(where, "give exactly one of \"column\", \"columns\"");
  if (m.contains("column")) {
    if (!m.at("column").is_string() || m.at("column").get<std::string>().empty()) fail(where + ".column", "expected a dynamics.csv column");
    out.columns = {m.at("column").get<std::string>()};
  } else {
    const json& c = m.at("columns");
    if (!c.is_array() || c.size() < 2) fail(where + ".columns", "expected a list of at least two dynamics.csv columns");
    for (std::size_t k = 0; k < c.size(); ++k) {
      if (!c[k].is_string() || c[k].get<std::string>().empty()) fail(where + ".columns[" + std::to_string(k) + "]", "expected a dynamics.csv column");
      out.columns.push_back(c[k].get<std::string>());
    }
  }
  std::string stats;
  bool known = false;
  if (!m.contains("stat") || !m.at("stat").is_string()) fail(where + ".stat", "expected one of the statistics");
  for (const auto& [text, stat] : kStats) {
    stats += (stats.empty() ? "" : ", ") + std::string(text);
    if (m.at("stat").get<std::string>() == text) {
      out.stat = stat;
      known = true;
    }
  }
  if (!known) fail(where + ".stat", "'" + m.at("stat").get<std::string>() + "' is none of " + stats);
  using S = ColumnMetric::Stat;
  if (out.columns.size() > 1 && out.stat != S::min && out.stat != S::max && out.stat != S::max_abs &&
      out.stat != S::count_nonzero) {
    fail(where + ".columns", "several columns take min, max, max_abs or count_nonzero (over all of them); give one column for " +
                                 m.at("stat").get<std::string>());
  }
  if (m.contains("from_s")) out.from_s = number(m.at("from_s"), where + ".from_s");
  if (m.contains("to_s")) out.to_s = number(m.at("to_s"), where + ".to_s");
  if (!(out.from_s <= out.to_s)) fail(where, "from_s after to_s");
  if (!m.contains("against")) return out;

  // The reference of each point: the point with its backend, repetition and values but these.
  const json& against = m.at("against");
  if (!against.is_object() || against.empty()) fail(where + ".against", "expected {\"NAME\": value, ...}: the reference's values");
  for (const auto& [key, v] : against.items()) {
    if (!keys_.count(key) || key == "backend") {
      fail(where + ".against." + key, "not a swept parameter (the reference differs from a point in swept values only)");
    }
    out.against[key] = value(v, where + ".against." + key);
  }
  std::map<std::string, std::size_t> by_key;
  for (std::size_t i = 0; i < spec.points.size(); ++i) {
    const Point& p = spec.points[i];
    by_key.emplace(point_key(p.backend, p.repetition, p.params), i);
  }
  for (const Point& p : spec.points) {
    std::map<std::string, Value> wanted = p.params;
    for (const auto& [key, v] : out.against) wanted[key] = v;
    const auto it = by_key.find(point_key(p.backend, p.repetition, wanted));
    if (it == by_key.end()) {
      std::string values;
      for (const auto& [key, v] : out.against) values += (values.empty() ? "" : ", ") + key + "=" + value_text(v);
      fail(where + ".against", describe_point(spec, p) + " has no reference: no point with " + values +
                                   " and its other values");
    }
    out.reference.push_back(it->second);
  }
  return out;
}

}  // namespace

std::string value_text(const Value& value) {
  if (const auto* text = std::get_if<std::string>(&value)) return *text;
  const double v = std::get<double>(value);
  char buf[32];
  for (const int digits : {15, 16, 17}) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

Spec parse_spec(const std::string& json_text, const fs::path& file) {
  // JSON leaves a key given twice to the reader (nlohmann keeps the last): refused here, as
  // the mistake it would be, naming where (`axes[1].param`).
  struct Open {
    bool object = true;
    std::set<std::string> keys;
    std::string key;        // an object's current key
    std::size_t index = 0;  // an array's current element
  };
  std::vector<Open> open;
  std::string duplicate;
  const auto where = [&] {
    std::string text;
    for (const Open& o : open) {
      text += o.object ? (text.empty() ? "" : ".") + o.key : "[" + std::to_string(o.index) + "]";
    }
    return text;
  };
  const auto value_done = [&] {
    if (!open.empty() && !open.back().object) ++open.back().index;
  };
  const json::parser_callback_t check = [&](int /*depth*/, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        open.push_back(Open{event == json::parse_event_t::object_start, {}, {}, 0});
        break;
      case json::parse_event_t::key:
        open.back().key = parsed.get<std::string>();
        if (!open.back().keys.insert(open.back().key).second && duplicate.empty()) duplicate = where();
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        open.pop_back();
        value_done();
        break;
      case json::parse_event_t::value:
        value_done();
        break;
    }
    return true;
  };
  json root;
  try {
    root = json::parse(json_text, check);
  } catch (const json::exception& e) {  // a parse error, or a number beyond a double ("1e999")
    throw util::BadInputError(file.string() + ": not JSON: " + e.what());
  }
  if (!duplicate.empty()) throw util::BadInputError(file.string() + ": " + duplicate + ": given twice");
  return SpecReader(root, file).read();
}

Spec read_spec(const fs::path& file) {
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  if (ec || !fs::is_regular_file(file, ec)) throw util::BadInputError(file.string() + ": cannot read the sweep file");
  if (size > kMaxSpecBytes) {
    throw util::BadInputError(file.string() + ": " + std::to_string(size) + " bytes; a sweep file is at most " +
                              std::to_string(kMaxSpecBytes));
  }
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return parse_spec(text.str(), file);
}

}  // namespace cosim::sweep
