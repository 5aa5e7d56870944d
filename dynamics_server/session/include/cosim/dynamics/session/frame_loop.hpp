#pragma once
/// \file
/// The frame loop: integrates the backend over the merged frame and output grids, writes the
/// state rows, sends frames (lockstep, free or realtime) and compares the reports.

#include <chrono>
#include <cstdint>

#include "cosim/dynamics/backend.hpp"
#include "cosim/dynamics/session/probe_comparator.hpp"
#include "cosim/dynamics/session/probe_kinematics.hpp"
#include "cosim/dynamics/session/realtime_pacer.hpp"
#include "cosim/dynamics/session/run_record.hpp"
#include "cosim/dynamics/session/server_session.hpp"
#include "cosim/util/event_log.hpp"
#include "cosim/v1/cosim.pb.h"

namespace cosim::dynamics::session {

struct LoopSettings {
  double fps = 20.0;             ///< [1/s]; frame k is at sim time k / fps, k = 1..frame_count
  std::uint64_t frame_count = 0;
  double duration_s = 50.0;      ///< output rows cover [0, duration_s]
  double output_step_s = 0.02;   ///< [s]
  v1::Mode mode = v1::MODE_LOCKSTEP;
  double rate = 1.0;             ///< realtime: sim seconds per wall second
  std::chrono::milliseconds report_timeout{10'000};  ///< lockstep wait per report; Bye wait (every mode)
  bool progress = false;         ///< one updating status line on stderr
};

/// Runs one session's frames. Without a session (channel none) it integrates and writes
/// dynamics.csv only. Everything it needs is given; it owns only its loop state.
class FrameLoop {
 public:
  FrameLoop(Backend& backend, ProbeKinematics& kinematics, RunRecord& record, ProbeComparator& comparator,
            ServerSession* session, const LoopSettings& settings, util::EventLog& log);

  /// Writes the initial state, then every output step and frame to the end of the run; for a
  /// backend that runs foreign code (Backend::runs_foreign_code), the tables are flushed after
  /// each frame.
  /// Throws util::PeerError when the visual side misbehaves or leaves early,
  /// util::InterruptedError (naming the frame) after a stop signal, and the backend's errors.
  void run();
  /// Says Bye and collects the reports still on their way until the peer's Bye (free and
  /// realtime); a peer that closes or stays silent is logged, not an error.
  void finish();

  std::uint64_t frames_sent() const { return comparator_.last_sent(); }
  std::uint64_t overruns() const { return overruns_; }

 private:
  void write_state();
  void send_frame(std::uint64_t k, double t_s);
  /// Realtime: waits for the frame's due time, taking in reports meanwhile.
  void pace(double t_s);
  void take_report(const v1::ProbeReport& report);
  void check_bye();
  void await_report(std::uint64_t k);
  void drain_reports();
  void show_progress(double t_s, bool final);

  Backend& backend_;
  ProbeKinematics& kinematics_;
  RunRecord& record_;
  ProbeComparator& comparator_;
  ServerSession* session_;
  LoopSettings settings_;
  util::EventLog& log_;
  RealtimePacer pacer_;
  std::uint64_t overruns_ = 0;
  std::chrono::steady_clock::time_point wall_start_, last_progress_;
};

}  // namespace cosim::dynamics::session
