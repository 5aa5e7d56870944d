#include "cosim/dynamics/session/frame_loop.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <thread>

#include "cosim/util/clock.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/util/text.hpp"
#include "cosim/wire/interrupt.hpp"

namespace cosim::dynamics::session {

namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

}  // namespace

FrameLoop::FrameLoop(Backend& backend, ProbeKinematics& kinematics, RunRecord& record, ProbeComparator& comparator,
                     ServerSession* session, const LoopSettings& settings, util::EventLog& log)
    : backend_(backend),
      kinematics_(kinematics),
      record_(record),
      comparator_(comparator),
      session_(session),
      settings_(settings),
      log_(log),
      pacer_(settings.rate) {
  backend_.set_interrupt_check(&wire::stop_requested);  // a long frame ends at a signal too
}

void FrameLoop::write_state() {
  const auto p_WP = kinematics_.positions(backend_.time_s(), backend_.joint_values());
  record_.write_state(backend_.time_s(), backend_.joint_values(), p_WP, backend_.outputs());
}

void FrameLoop::take_report(const v1::ProbeReport& report) {
  record_.write_comparison(comparator_.compare(report, session_->received_ns()));
}

void FrameLoop::check_bye() {
  // The visual side answers our Bye; before it, a Bye means it gave up. In lockstep the
  // report of the last frame must come before it, too.
  const bool all_sent = comparator_.last_sent() == settings_.frame_count;
  const bool all_reported = settings_.mode != v1::MODE_LOCKSTEP || comparator_.last_reported() == settings_.frame_count;
  if (!all_sent || !all_reported) {
    throw util::PeerError("visual side ended the session at frame " + std::to_string(comparator_.last_sent()) +
                          " of " + std::to_string(settings_.frame_count) + " (last report " +
                          std::to_string(comparator_.last_reported()) + "): " + session_->peer_bye_reason());
  }
}

void FrameLoop::pace(double t_s) {
  if (!pacer_.anchored()) return;  // the first frame leaves at once and anchors the schedule
  const std::int64_t due_ns = pacer_.due_ns(t_s);
  const std::int64_t late_ns = util::steady_ns() - due_ns;
  if (late_ns > RealtimePacer::kOverrunNs) {
    ++overruns_;
    if (overruns_ <= 10 || overruns_ % 100 == 0) {
      log_.warn(util::format("realtime overrun #%.0f: frame at t=%.3f s sent %.1f ms late", static_cast<double>(overruns_), t_s,
                    static_cast<double>(late_ns) / 1e6));
    }
    return;
  }
  // Wait on the channel, so reports are consumed (and timed) as they arrive; this frame is
  // not sent yet, so their delay counts from the previous one.
  while (true) {
    const std::int64_t left_ns = due_ns - util::steady_ns();
    if (left_ns <= 0) return;
    if (left_ns >= 1'000'000 && !session_->peer_said_bye()) {
      if (const auto* report = session_->receive(milliseconds(left_ns / 1'000'000))) take_report(*report);
      if (session_->peer_said_bye()) check_bye();
    } else {
      std::this_thread::sleep_for(std::chrono::nanoseconds(left_ns));
    }
  }
}

void FrameLoop::send_frame(std::uint64_t k, double t_s) {
  const auto q = backend_.joint_values();
  const auto p_WP = kinematics_.positions(t_s, q);
  std::int64_t sent_ns = util::steady_ns();
  if (session_ != nullptr) {
    if (settings_.mode == v1::MODE_REALTIME) pace(t_s);
    sent_ns = session_->send_frame(k, t_s, q, comparator_.feedback());
    if (settings_.mode == v1::MODE_REALTIME && !pacer_.anchored()) pacer_.anchor(t_s, sent_ns);
  }
  comparator_.record_sent(k, t_s, sent_ns, p_WP);
}

void FrameLoop::await_report(std::uint64_t k) {
  while (comparator_.last_reported() < k) {
    const auto* report = session_->receive(settings_.report_timeout);
    if (report != nullptr) {
      take_report(*report);
    } else if (session_->peer_said_bye()) {
      check_bye();
      return;
    } else {
      throw util::PeerError("no ProbeReport for frame " + std::to_string(k) + " within " +
                            std::to_string(settings_.report_timeout.count()) + " ms (lockstep) on " +
                            session_->describe());
    }
  }
}

void FrameLoop::drain_reports() {
  while (const auto* report = session_->receive(milliseconds(0))) take_report(*report);
  if (session_->peer_said_bye()) check_bye();
}

void FrameLoop::show_progress(double t_s, bool final) {
  if (!settings_.progress) return;
  const auto now = Clock::now();
  if (!final && now - last_progress_ < milliseconds(250)) return;
  last_progress_ = now;
  const double wall_s = std::chrono::duration<double>(now - wall_start_).count();
  const auto sent = comparator_.last_sent();
  std::fprintf(stderr, "\rcosim-dynamics: t = %7.2f / %.2f s  frames %llu/%llu  reports %llu  %.0f frames/s   ", t_s,
               static_cast<double>(settings_.frame_count) / settings_.fps, static_cast<unsigned long long>(sent),
               static_cast<unsigned long long>(settings_.frame_count),
               static_cast<unsigned long long>(comparator_.reports()),
               wall_s > 0 ? static_cast<double>(sent) / wall_s : 0.0);
  if (final) std::fputc('\n', stderr);
}

void FrameLoop::run() {
  // Merge the frame grid (k / fps) and the output grid (n * output_step) by integer index
  // so that coinciding times are one event and no drift accumulates.
  const double fps = settings_.fps;
  const double dt_out = settings_.output_step_s;
  const auto output_count = static_cast<std::uint64_t>(std::floor(settings_.duration_s / dt_out + 1e-9));
  std::uint64_t k = 1, n = 1;
  write_state();  // initial state, t = 0
  wall_start_ = last_progress_ = Clock::now();
  while (k <= settings_.frame_count || n <= output_count) {
    if (wire::stop_requested()) {
      throw util::InterruptedError(util::format("interrupted by a signal at frame %.0f of %.0f (t = %g s)",
                                       static_cast<double>(comparator_.last_sent()),
                                       static_cast<double>(settings_.frame_count), backend_.time_s()));
    }
    const double t_frame = k <= settings_.frame_count ? static_cast<double>(k) / fps : INFINITY;
    const double t_output = n <= output_count ? static_cast<double>(n) * dt_out : INFINITY;
    const double t = std::min(t_frame, t_output);
    const double eps = 1e-9 * std::max(1.0, t);
    const bool is_frame = t_frame <= t + eps;
    const bool is_output = t_output <= t + eps;
    const double t_event = is_frame ? t_frame : t_output;
    if (t_event > backend_.time_s()) backend_.advance_to(t_event);
    if (is_output) {
      write_state();
      ++n;
    }
    if (is_frame) {
      send_frame(k, t_event);
      if (session_ != nullptr) {
        if (settings_.mode == v1::MODE_LOCKSTEP) {
          await_report(k);
        } else {
          drain_reports();
        }
      }
      show_progress(t_event, false);
      // A model whose code is not cosim's (an FMU's doStep) may crash the process: the tables
      // on disk up to this frame keep every row before it. One write per table with something
      // new (~7 us a frame: cosim's own backends, whose failures are exceptions, skip it).
      if (backend_.runs_foreign_code()) record_.flush();
      ++k;
    }
  }
  show_progress(backend_.time_s(), true);
}

void FrameLoop::finish() {
  if (session_ == nullptr) return;
  session_->set_context("at the end of the run");
  // Free/realtime: reports for the last frames are still on their way; collect them until
  // the visual side answers our Bye.
  session_->send_bye(comparator_.last_sent());
  const auto deadline = Clock::now() + settings_.report_timeout;
  while (!session_->peer_said_bye()) {
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      // Its account of the run (frames it skipped) never came: the run is not whole. As a
      // visual side silent for a lockstep frame, it is stopped or hung (docs/security.md).
      throw util::PeerError("the visual side did not answer Bye within " +
                            std::to_string(settings_.report_timeout.count()) + " ms (stopped or hung?); it reported " +
                            std::to_string(comparator_.reports()) + " of " + std::to_string(comparator_.last_sent()) +
                            " frames");
    }
    const v1::ProbeReport* report = nullptr;
    try {
      report = session_->receive(left);
    } catch (const util::PeerError&) {
      // After our Bye the run is complete; a peer that closes without answering loses nothing.
      log_.warn("visual side closed the channel without Bye");
      return;
    }
    if (report != nullptr) take_report(*report);
  }
}

}  // namespace cosim::dynamics::session
