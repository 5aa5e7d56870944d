// The rose's shared parameter declarations: defaults are RoseParams' and reading resolved
// values gives the RoseParams they describe.
#include "cosim/dynamics/reference/rose_params.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cosim::dynamics::reference {
namespace {

TEST(RoseParams, SpecDefaultsAreTheStructDefaults) {
  const Params params = Params::resolve("test", rose_param_specs(), nullptr, {});
  const RoseParams read = read_rose_params(params);
  const RoseParams defaults;
  EXPECT_EQ(read.amplitude_m, defaults.amplitude_m);
  EXPECT_EQ(read.petals_k, defaults.petals_k);
  EXPECT_EQ(read.rate_rad_per_s, defaults.rate_rad_per_s);
  EXPECT_EQ(read.phase_rad, defaults.phase_rad);
  for (const ParamSpec& spec : rose_param_specs()) {
    EXPECT_EQ(spec.key.rfind("rose_", 0), 0u) << spec.key << ": the rose's keys share a prefix";
    EXPECT_FALSE(spec.doc.empty()) << spec.key;
    EXPECT_FALSE(spec.source.empty()) << spec.key;
  }
}

TEST(RoseParams, OverridesReachEveryField) {
  const std::vector<std::string> cli{"rose_amplitude_m=1.5", "rose_petals=5", "rose_rate_rad_per_s=0.2",
                                     "rose_phase_rad=-1"};
  const RoseParams read = read_rose_params(Params::resolve("test", rose_param_specs(), nullptr, cli));
  EXPECT_EQ(read.amplitude_m, 1.5);
  EXPECT_EQ(read.petals_k, 5.0);
  EXPECT_EQ(read.rate_rad_per_s, 0.2);
  EXPECT_EQ(read.phase_rad, -1.0);
}

}  // namespace
}  // namespace cosim::dynamics::reference
