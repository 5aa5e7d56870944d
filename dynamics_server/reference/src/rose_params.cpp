#include "cosim/dynamics/reference/rose_params.hpp"

#include <array>
#include <numbers>

namespace cosim::dynamics::reference {

std::span<const ParamSpec> rose_param_specs() {
  constexpr double kPi = std::numbers::pi;
  const RoseParams defaults;
  static const std::array<ParamSpec, 4> specs{{
      {"rose_amplitude_m", defaults.amplitude_m, 0.01, 100.0, "m", "rose amplitude a", "seed 000 eq. 24"},
      {"rose_petals", defaults.petals_k, 0.25, 20.0, "1", "rose petal parameter k (3 petals for k = 3)",
       "seed 000 eq. 24"},
      {"rose_rate_rad_per_s", defaults.rate_rad_per_s, 0.001, 10.0, "rad/s",
       "rate a of the rose angle phi = a t + phase", "seed 000 eq. 25"},
      {"rose_phase_rad", defaults.phase_rad, -2.0 * kPi, 2.0 * kPi, "rad",
       "rose angle at t = 0 (5 pi/6 starts at the origin)", "seed 000 eq. 25"},
  }};
  return specs;
}

RoseParams read_rose_params(const Params& params) {
  RoseParams rose;
  rose.amplitude_m = params.get("rose_amplitude_m");
  rose.petals_k = params.get("rose_petals");
  rose.rate_rad_per_s = params.get("rose_rate_rad_per_s");
  rose.phase_rad = params.get("rose_phase_rad");
  return rose;
}

}  // namespace cosim::dynamics::reference
