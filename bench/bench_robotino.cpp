// The robotino backend alone: 50 s of the default rose advanced at the output step 0.02 s
// (2500 advance_to calls), tolerances 1e-6, as `cosim-dynamics --backend robotino
// --channel none --duration 50` integrates it, without the CSV writing. Target ≤ 0.3 s with
// the electrical outputs within 1 % of converged (seed 000 reports 0.51 s; MODEL.md §7); the
// pose alone (currents to 1 mA) ≤ 50 ms.
#include <benchmark/benchmark.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cosim/dynamics/registry/registry.hpp"
#include "cosim/dynamics/robotino/robotino_backend.hpp"

namespace {

using cosim::dynamics::Backend;
using cosim::dynamics::robotino::RobotinoBackend;

constexpr double kDuration_s = 50.0;
constexpr double kOutputStep_s = 0.02;

std::unique_ptr<Backend> make(const std::vector<std::string>& overrides, const std::filesystem::path* file) {
  const auto& entry = cosim::dynamics::registry::find_backend("robotino");
  return entry.make(cosim::dynamics::Params::resolve(entry.name, entry.param_specs(), file, overrides), 0.0);
}

// Builds the backend (IDACalcIC included) and runs it to 50 s.
void run_rose(benchmark::State& state, const std::vector<std::string>& overrides,
              const std::filesystem::path* file = nullptr) {
  const auto steps = static_cast<int>(std::lround(kDuration_s / kOutputStep_s));
  cosim::dae::IdaStats stats;
  double dx_end_m = 0.0;
  for (auto _ : state) {
    auto backend = make(overrides, file);
    for (int k = 1; k <= steps; ++k) backend->advance_to(k * kOutputStep_s);
    benchmark::DoNotOptimize(backend->joint_values().data());
    stats = static_cast<const RobotinoBackend&>(*backend).solver_stats();
    dx_end_m = std::abs(backend->outputs()[cosim::dynamics::robotino::robotino_output::kDx]);
  }
  state.counters["ida_steps"] = static_cast<double>(stats.steps);
  state.counters["res_evals"] = static_cast<double>(stats.residual_evals);
  state.counters["jac_evals"] = static_cast<double>(stats.jacobian_evals);
  state.counters["err_fails"] = static_cast<double>(stats.error_test_fails);
  state.counters["switches"] = static_cast<double>(stats.root_returns);
  state.counters["dx_end_m"] = dx_end_m;
}

void BM_RobotinoRose50s(benchmark::State& state) { run_rose(state, {}); }
BENCHMARK(BM_RobotinoRose50s)->Unit(benchmark::kMillisecond)->MinTime(2.0);

// The same with an IDAReInit restart at every roller switch (MODEL.md §4), for comparison.
void BM_RobotinoRose50sRestartAtSwitches(benchmark::State& state) {
  run_rose(state, {"solver_restart_at_switch=1"});
}
BENCHMARK(BM_RobotinoRose50sRestartAtSwitches)->Unit(benchmark::kMillisecond)->MinTime(2.0);

// The seed-literal preset (plain PID, poles at −2000 1/s): faster post-switch transients.
void BM_RobotinoRose50sSeedLiteral(benchmark::State& state) {
  const std::filesystem::path preset = std::filesystem::path(COSIM_SCENES_DIR) / "robotino/params/seed000.params";
  run_rose(state, {}, &preset);
}
BENCHMARK(BM_RobotinoRose50sSeedLiteral)->Unit(benchmark::kMillisecond)->MinTime(2.0);

// Currents to 1 mA (the setting before the electrical outputs were made accurate): the pose
// is as accurate, currents are off by up to ~10 % after the switches.
void BM_RobotinoRose50sCurrentsTo1mA(benchmark::State& state) {
  run_rose(state, {"solver_current_atol_scale=1000"});
}
BENCHMARK(BM_RobotinoRose50sCurrentsTo1mA)->Unit(benchmark::kMillisecond)->MinTime(2.0);

// Without roller inertia nothing jumps at a switch: the cost of the smooth problem.
void BM_RobotinoRose50sNoRollerInertia(benchmark::State& state) {
  run_rose(state, {"roller_inertia_kg_m2=0"});
}
BENCHMARK(BM_RobotinoRose50sNoRollerInertia)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace

BENCHMARK_MAIN();
