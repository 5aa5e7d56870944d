#pragma once
/// \file
/// run.json read with a real JSON parser, so tests ask for fields, not for substrings; each one
/// read here has passed cosim::run's strict reader first.

#include <filesystem>

#include <boost/property_tree/ptree.hpp>

namespace cosim::test {

/// RUN_DIR/run.json as a tree: json.get<std::string>("status"),
/// json.get<double>("summary.delay_frames.p50"). Throws (failing the test) when the file is
/// missing, not JSON, or refused by run::read_run_summary.
boost::property_tree::ptree read_run_json(const std::filesystem::path& run_dir);

}  // namespace cosim::test
