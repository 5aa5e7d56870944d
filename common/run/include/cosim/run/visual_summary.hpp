#pragma once
/// \file
/// The visual side's record of a session (visual.json by cosim-visual, recorder.json by
/// cosim-recorder, in their --out folder): what it received, showed and skipped. Written at the
/// end of a session that got frames; the launcher reads it to say what the viewer showed.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace cosim::run {

/// visual.json's schema (the same rules as run.json's kRunSchemaVersion).
inline constexpr int kVisualSchemaVersion = 1;

struct VisualSummary {
  std::string program;  ///< "cosim-visual" or "cosim-recorder"
  std::uint64_t frames_received = 0;
  std::uint64_t frames_shown = 0;    ///< rendered (cosim-visual) or probed (cosim-recorder)
  std::uint64_t frames_skipped = 0;  ///< received but superseded by a newer one before they were shown
  double frames_per_s = 0;           ///< rendering rate; NaN for the recorder
  std::string video;                 ///< the video file written, empty: none
  std::uint64_t video_frames = 0;
  /// A replay: probe reports compared with the recording, and the largest difference [m]
  /// (both 0 when not a replay).
  std::uint64_t replay_reports_compared = 0;
  double replay_max_difference_m = 0;
};

/// The file a visual-side program writes into its --out folder: "visual.json" for
/// cosim-visual, "recorder.json" for cosim-recorder.
std::filesystem::path visual_summary_file(const std::filesystem::path& out_dir, std::string_view program);

std::string to_json(const VisualSummary& summary);
/// Writes the summary atomically (a temporary file renamed over the old one).
void write_visual_summary(const std::filesystem::path& file, const VisualSummary& summary);
/// Strict, as parse_run_summary: util::BadInputError naming the file and the key.
VisualSummary parse_visual_summary(std::string_view json_text, const std::string& where);
VisualSummary read_visual_summary(const std::filesystem::path& file);

}  // namespace cosim::run
