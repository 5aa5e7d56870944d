#include "cosim/run/visual_summary.hpp"

#include "cosim/platform/paths.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/util/json_writer.hpp"
#include "strict_json.hpp"

namespace cosim::run {

/// Largest visual.json read [bytes]; one is about 400.
constexpr std::uintmax_t kMaxVisualJsonBytes = 64 << 10;

std::filesystem::path visual_summary_file(const std::filesystem::path& out_dir, std::string_view program) {
  return out_dir / (program == "cosim-recorder" ? "recorder.json" : "visual.json");
}

namespace {

util::JsonWriter document(const VisualSummary& v) {
  util::JsonWriter json;
  json.field("schema_version", kVisualSchemaVersion)
      .field("program", v.program)
      .field("frames_received", v.frames_received)
      .field("frames_shown", v.frames_shown)
      .field("frames_skipped", v.frames_skipped)
      .field("frames_per_s", v.frames_per_s)
      .field("video", v.video)
      .field("video_frames", v.video_frames)
      .field("replay_reports_compared", v.replay_reports_compared)
      .field("replay_max_difference_m", v.replay_max_difference_m);
  return json;
}

}  // namespace

std::string to_json(const VisualSummary& summary) { return document(summary).str(); }

void write_visual_summary(const std::filesystem::path& file, const VisualSummary& summary) {
  document(summary).write_file(file);
}

VisualSummary parse_visual_summary(std::string_view json_text, const std::string& where) {
  const nlohmann::json document = detail::parse_object(json_text, where);
  const detail::StrictObject o(document, where);
  if (const int version = o.integer("schema_version"); version != kVisualSchemaVersion) {
    o.fail("schema_version", "schema " + std::to_string(version) + ", this cosim reads schema " +
                                 std::to_string(kVisualSchemaVersion));
  }
  VisualSummary v;
  v.program = o.text("program");
  v.frames_received = o.count("frames_received");
  v.frames_shown = o.count("frames_shown");
  v.frames_skipped = o.count("frames_skipped");
  v.frames_per_s = o.number("frames_per_s");
  v.video = o.text("video");
  v.video_frames = o.count("video_frames");
  v.replay_reports_compared = o.count("replay_reports_compared");
  v.replay_max_difference_m = o.number("replay_max_difference_m");
  return v;
}

VisualSummary read_visual_summary(const std::filesystem::path& file) {
  return parse_visual_summary(detail::read_small_file(file, kMaxVisualJsonBytes, "visual side's summary"),
                              platform::utf8(file));
}

}  // namespace cosim::run
