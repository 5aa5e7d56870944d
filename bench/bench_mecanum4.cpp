// The mecanum4 backend alone (seed 002's platform): the 10 s manoeuvre with each wheel model,
// output every 10 ms, tolerances of spec A.2.5, side by side in one run. Seed 002 reports
// 3465 s (16 spheres per wheel) and 330 s (reduced) in Simscape, "about 10 times faster".
// Targets: the reduced model ≥ 10× faster than the roller-level one, and each ≥ 100× faster
// than Simscape: rollers ≤ 34.6 s, reduced ≤ 3.3 s. `scripts/bench.sh mecanum4` prints the ratio.
#include <benchmark/benchmark.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "cosim/dynamics/mecanum4/mecanum4_backend.hpp"
#include "cosim/dynamics/registry/registry.hpp"

namespace {

constexpr double kDuration_s = 10.0;
constexpr double kOutputStep_s = 0.01;

void run(benchmark::State& state, const std::string& wheel_model) {
  const auto& entry = cosim::dynamics::registry::find_backend("mecanum4");
  const std::vector<std::string> overrides{"wheel_model=" + wheel_model};
  const auto steps = static_cast<int>(std::lround(kDuration_s / kOutputStep_s));
  cosim::dae::IdaStats stats;
  for (auto _ : state) {
    auto backend = entry.make(cosim::dynamics::Params::resolve(entry.name, entry.param_specs(), nullptr, overrides), 0.0);
    for (int k = 1; k <= steps; ++k) backend->advance_to(k * kOutputStep_s);
    benchmark::DoNotOptimize(backend->joint_values().data());
    stats = static_cast<const cosim::dynamics::mecanum4::Mecanum4Backend&>(*backend).solver_stats();
  }
  state.counters["ida_steps"] = static_cast<double>(stats.steps);
  state.counters["res_evals"] = static_cast<double>(stats.residual_evals);
  state.counters["jac_evals"] = static_cast<double>(stats.jacobian_evals);
}

void BM_Mecanum4Manoeuvre10sRollers(benchmark::State& state) { run(state, "rollers"); }
void BM_Mecanum4Manoeuvre10sReduced(benchmark::State& state) { run(state, "reduced"); }
BENCHMARK(BM_Mecanum4Manoeuvre10sRollers)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_Mecanum4Manoeuvre10sReduced)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace

BENCHMARK_MAIN();
