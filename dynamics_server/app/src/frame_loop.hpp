#pragma once

#include <cstdint>

#include "cosim/util/stats.hpp"
#include "options.hpp"

namespace cosim::dynamics {

/// What a run did, printed at its end and stored in run.json.
struct RunSummary {
  std::uint64_t frames_sent = 0;
  std::uint64_t reports_received = 0;
  std::uint64_t frames_skipped_by_visual = 0;  ///< as the visual side reported
  std::uint64_t overruns = 0;                  ///< realtime: frames sent after their due time
  std::uint64_t csv_rows = 0;
  util::Summary delay_frames;
  util::Summary delay_sim_s;
  util::Summary rtt_us;
  util::Summary diff_same_time_m;   ///< |virtual - dynamic| at the frame's sim time, worst probe
  util::Summary diff_at_arrival_m;  ///< |virtual - dynamic| at the sim time the report arrived
  double wall_s = 0;
};

/// Runs cosim-dynamics as configured: backend, run folder, optional visual peer, frame
/// loop in the requested mode. Everything that goes wrong ends as one line on stderr, an
/// entry in dynamics.log and run.json, and the returned exit code (util::ExitCode);
/// what was written before the failure stays written.
int run_dynamics(const DynamicsOptions& options);

}  // namespace cosim::dynamics
