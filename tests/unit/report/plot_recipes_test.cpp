// The report's plot recipes against the outputs every registered backend declares: the plots
// a backend's runs get are pinned here, so renaming an output that a plot draws (the contract
// between a backend and the report) fails this test instead of silently dropping the plot.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cosim/dynamics/registry/registry.hpp"
#include "cosim/report/run_report.hpp"

namespace cosim::report {
namespace {

// A run of `name` with default parameters as the dynamics writes it: t_s, the joints, the
// first probe's position (every scene here has a probe), the outputs; with a visual side, past
// the transient.
RunShape shape_of_backend(const std::string& name) {
  const auto& entry = dynamics::registry::find_backend(name);
  const auto backend = entry.make(dynamics::Params::resolve(entry.name, entry.param_specs(), nullptr, {}), 0.0);
  RunShape shape;
  shape.dynamics_columns.push_back("t_s");
  for (const auto& joint : backend->joint_names()) shape.dynamics_columns.push_back(joint + "_rad");
  shape.first_probe = "Robot/probe";
  for (const char* axis : {"x", "y", "z"}) shape.dynamics_columns.push_back(shape.first_probe + "/" + axis + "_m");
  for (const auto& output : backend->output_names()) shape.dynamics_columns.push_back(output);
  shape.joint_names.assign(backend->joint_names().begin(), backend->joint_names().end());
  shape.probe_reports = true;
  shape.after_transient = true;
  return shape;
}

using Plots = std::vector<std::string>;

// What each backend's runs draw (with a visual side, longer than the transient); without
// --compare, and the extra plot when compared with a run of the same backend.
const std::map<std::string, std::pair<Plots, Plots>> kExpected{
    {"fmu", {{"path", "virtual_minus_dynamic", "delay_histogram"}, {}}},
    {"kinematic", {{"path", "virtual_minus_dynamic", "deviation", "delay_histogram"}, {}}},
    {"mecanum3vw", {{"path", "virtual_minus_dynamic", "deviation", "delay_histogram"}, {}}},
    {"mecanum4", {{"path", "virtual_minus_dynamic", "deviation", "delay_histogram", "speeds"}, {}}},
    {"mujoco", {{"path", "virtual_minus_dynamic", "delay_histogram"}, {}}},
    {"omniwheel",
     {{"path", "virtual_minus_dynamic", "delay_histogram", "contact_trail", "contact", "contact_forces"},
      {"difference"}}},
    {"robotino", {{"path", "virtual_minus_dynamic", "deviation", "delay_histogram"}, {}}},
    {"trajectory", {{"path", "virtual_minus_dynamic", "delay_histogram"}, {}}},
};

TEST(PlotRecipes, EachBackendsRunsGetTheirPlots) {
  for (const auto& entry : dynamics::registry::backend_registry()) {
    const std::string name(entry.name);
    SCOPED_TRACE("backend " + name);
    ASSERT_TRUE(kExpected.contains(name)) << "a new backend: add the plots its runs get to kExpected";
    const RunShape run = shape_of_backend(name);
    const auto& [alone, compared_extra] = kExpected.at(name);
    EXPECT_EQ(plots_for(run), alone);
    // Compared with another run of the same backend: the same plots, plus the difference where
    // roller 1's motion is an output.
    std::set<std::string> with_compare(alone.begin(), alone.end());
    with_compare.insert(compared_extra.begin(), compared_extra.end());
    const Plots compared = plots_for(run, &run);
    EXPECT_EQ(std::set<std::string>(compared.begin(), compared.end()), with_compare);
  }
}

TEST(PlotRecipes, EveryPlotOfBackendOutputsIsDrawnForSomeBackend) {
  // A plot that needs columns no registered backend writes is dead: its outputs were renamed.
  std::set<std::string> drawn;
  for (const auto& entry : dynamics::registry::backend_registry()) {
    const RunShape run = shape_of_backend(std::string(entry.name));
    for (const auto& plot : plots_for(run, &run)) drawn.insert(plot);
  }
  for (const PlotRecipeInfo& recipe : plot_recipes()) {
    EXPECT_TRUE(drawn.contains(std::string(recipe.name))) << recipe.name << " (" << recipe.what << ")";
  }
}

TEST(PlotRecipes, WhatARunLacksLeavesItsPlotsOut) {
  RunShape run = shape_of_backend("robotino");
  run.probe_reports = false;  // no visual side
  EXPECT_EQ(plots_for(run), (Plots{"path", "deviation"}));
  run.after_transient = false;  // shorter than the transient: no deviation
  EXPECT_EQ(plots_for(run), (Plots{"path"}));
  run.first_probe.clear();  // no probe compared
  EXPECT_TRUE(plots_for(run).empty());
  // With --compare the deviation needs the reference in both runs.
  RunShape with_reference = shape_of_backend("robotino"), without = shape_of_backend("omniwheel");
  const Plots compared = plots_for(with_reference, &without);
  EXPECT_EQ(std::count(compared.begin(), compared.end(), "deviation"), 0);
}

}  // namespace
}  // namespace cosim::report
