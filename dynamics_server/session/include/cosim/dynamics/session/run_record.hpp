#pragma once
/// \file
/// The tables a run writes as it goes: dynamics.csv (state per output step), probes.csv (one
/// row per report) and frames.cosimlog (every envelope as on the wire).

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "cosim/dynamics/session/probe_comparator.hpp"
#include "cosim/run/run_folder.hpp"
#include "cosim/util/csv_writer.hpp"
#include "cosim/wire/cosimlog.hpp"

namespace cosim::dynamics::session {

/// Opens the three files in `folder` and appends whole rows; each table has its own
/// preallocated row buffer, so writing does not allocate.
class RunRecord {
 public:
  /// joint_columns: one dynamics.csv column per backend joint, with its unit;
  /// probe_names: the compared probes; output_names: the backend's outputs, with units.
  /// Throws util::CosimError if a file cannot be created.
  RunRecord(const run::RunFolder& folder, std::span<const std::string> joint_columns,
            std::span<const std::string> probe_names, std::span<const std::string> output_names);

  /// One dynamics.csv row: t_s, joint values q, dynamic probes p_WP, outputs.
  void write_state(double t_s, std::span<const double> q, std::span<const Eigen::Vector3d> p_WP,
                   std::span<const double> outputs);
  /// One probes.csv row.
  void write_comparison(const Comparison& c);
  /// The recording the channel's Connection writes to.
  wire::CosimLogWriter& frames_log() { return *frames_log_; }
  std::uint64_t state_rows() const { return dynamics_csv_->rows(); }
  std::uint64_t comparison_rows() const { return probes_csv_->rows(); }
  /// Writes everything buffered to disk.
  void flush();

 private:
  std::size_t probe_count_;
  std::unique_ptr<util::CsvWriter> dynamics_csv_;
  std::unique_ptr<util::CsvWriter> probes_csv_;
  std::unique_ptr<wire::CosimLogWriter> frames_log_;
  std::vector<double> state_row_;
  std::vector<double> comparison_row_;
};

}  // namespace cosim::dynamics::session
