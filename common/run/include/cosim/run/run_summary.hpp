#pragma once
/// \file
/// run.json, the record of one run of cosim-dynamics (docs/design.md "The run folder"): a typed
/// record, its one writer and its strict reader. The dynamics writes it; cosim-report, the
/// launcher, the benchmarks and the tests read it here, never key by key.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "cosim/util/stats.hpp"

namespace cosim::run {

/// run.json's schema. Raised when a key changes meaning or goes away (a reader refuses any
/// other version); keys are only added within one version, and a reader ignores the ones it
/// does not know.
inline constexpr int kRunSchemaVersion = 1;

/// One backend parameter as the run used it.
struct RunParameter {
  using Value = std::variant<double, std::string>;
  std::string key;
  Value value;  ///< a number in `unit`, or a text (a file path)
  std::string unit;
  std::string origin;  ///< "default", "file <path>" or "--param"
};

/// The counts and statistics of a run's frames and reports (run.json "summary").
struct RunTotals {
  std::uint64_t frames_sent = 0;  ///< 0 without a peer
  std::uint64_t reports_received = 0;
  std::uint64_t frames_skipped_by_visual = 0;
  std::uint64_t overruns = 0;  ///< realtime mode: frames sent more than 1 ms late
  std::uint64_t dynamics_csv_rows = 0;
  util::Summary delay_frames;       ///< [frames]
  util::Summary delay_sim_s;        ///< [s] of sim time
  util::Summary rtt_us;             ///< [µs] on the dynamics' clock
  util::Summary diff_same_time_m;   ///< [m], worst probe
  util::Summary diff_at_arrival_m;  ///< [m], worst probe
};

/// Everything run.json says, in the order it says it.
struct RunSummary {
  std::string run_id;  ///< the run folder's name
  std::string status;  ///< "running" (until the end), "ok", "failed", "interrupted", "numerical_failure"
  std::string error;   ///< the one error line; empty when ok
  std::string command;
  std::string finished_utc;  ///< ISO 8601
  double wall_s = 0;
  std::string software_version, protocol_version, protobuf_version;
  std::string backend, model;
  std::string scene;       ///< the scene path given or found
  std::string scene_name;  ///< the scene's own name
  std::string mode;        ///< "lockstep", "free", "realtime"
  double fps = 0;
  double rate = 0;  ///< realtime mode: sim seconds per wall second
  double duration_s = 0;
  double output_step_s = 0;
  std::string channel;  ///< as given (--channel)
  std::uint64_t frame_count = 0;
  std::vector<RunParameter> parameters;
  std::vector<std::string> joint_names, probe_names;
  std::string peer_kind, peer_software_version, peer_scene;  ///< empty without a peer
  RunTotals totals;
};

/// The statuses run.json may hold.
inline constexpr std::string_view kRunStatuses[] = {"running", "ok", "failed", "interrupted", "numerical_failure"};

/// run.json's text: pretty-printed, keys in a fixed order, schema_version first.
std::string to_json(const RunSummary& summary);

/// Largest run.json read [bytes]: a Robotino run's is 6 KiB; the dynamics reserves 64 KiB.
inline constexpr std::uintmax_t kMaxRunJsonBytes = 4 << 20;

/// Reads run.json text strictly: a syntax error, a missing key, a value of the wrong type, an
/// unknown status or mode, or a schema_version other than kRunSchemaVersion throws
/// util::BadInputError with one line naming `where` (the file) and the key.
RunSummary parse_run_summary(std::string_view json_text, const std::string& where);

/// Reads a run.json file (a regular file of at most kMaxRunJsonBytes) with parse_run_summary.
RunSummary read_run_summary(const std::filesystem::path& run_json);

}  // namespace cosim::run
