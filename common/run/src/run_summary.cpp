#include "cosim/run/run_summary.hpp"

#include <algorithm>
#include <span>

#include "cosim/platform/paths.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/util/json_writer.hpp"
#include "cosim/util/text.hpp"
#include "strict_json.hpp"

namespace cosim::run {

namespace {

// The statistics of one quantity as util::write_statistics writes them.
constexpr const char* kStatistics[] = {"count", "p50", "p99", "max", "mean"};

util::Summary read_statistics(const detail::StrictObject& parent, const char* key) {
  const detail::StrictObject o = parent.object(key);
  util::Summary s;
  s.count = static_cast<std::size_t>(o.count(kStatistics[0]));
  s.p50 = o.number(kStatistics[1]);
  s.p99 = o.number(kStatistics[2]);
  s.max = o.number(kStatistics[3]);
  s.mean = o.number(kStatistics[4]);
  return s;
}

/// `value` if it is one of `allowed`; an error naming the key and the allowed values otherwise.
template <std::size_t N>
std::string one_of(const detail::StrictObject& o, const char* key, const std::string_view (&allowed)[N]) {
  std::string value = o.text(key);
  if (std::find(std::begin(allowed), std::end(allowed), value) != std::end(allowed)) return value;
  const std::vector<std::string> names(std::begin(allowed), std::end(allowed));
  o.fail(key, "'" + value + "' is none of " + util::join(names));
}

constexpr std::string_view kModes[] = {"lockstep", "free", "realtime", "unspecified"};

}  // namespace

std::string to_json(const RunSummary& r) {
  util::JsonWriter json;
  json.field("schema_version", kRunSchemaVersion)
      .field("run_id", r.run_id)
      .field("status", r.status)
      .field("error", r.error)
      .field("command", r.command)
      .field("finished_utc", r.finished_utc)
      .field("wall_s", r.wall_s);
  json.begin_object("versions")
      .field("software", r.software_version)
      .field("protocol", r.protocol_version)
      .field("protobuf", r.protobuf_version)
      .end_object();
  json.field("backend", r.backend)
      .field("model", r.model)
      .field("scene", r.scene)
      .field("scene_name", r.scene_name)
      .field("mode", r.mode)
      .field("fps", r.fps)
      .field("rate", r.rate)
      .field("duration_s", r.duration_s)
      .field("output_step_s", r.output_step_s)
      .field("channel", r.channel)
      .field("frame_count", r.frame_count);
  json.begin_object("parameters");
  for (const RunParameter& p : r.parameters) {
    json.begin_object(p.key);
    if (const auto* text = std::get_if<std::string>(&p.value)) {
      json.field("value", *text);
    } else {
      json.field("value", std::get<double>(p.value));
    }
    json.field("unit", p.unit).field("origin", p.origin).end_object();
  }
  json.end_object();
  json.field("joint_names", std::span<const std::string>(r.joint_names));
  json.field("probe_names", std::span<const std::string>(r.probe_names));
  json.begin_object("peer")
      .field("kind", r.peer_kind)
      .field("software_version", r.peer_software_version)
      .field("scene", r.peer_scene)
      .end_object();
  const RunTotals& t = r.totals;
  json.begin_object("summary")
      .field("frames_sent", t.frames_sent)
      .field("reports_received", t.reports_received)
      .field("frames_skipped_by_visual", t.frames_skipped_by_visual)
      .field("overruns", t.overruns)
      .field("dynamics_csv_rows", t.dynamics_csv_rows);
  util::write_statistics(json, "delay_frames", t.delay_frames);
  util::write_statistics(json, "delay_sim_s", t.delay_sim_s);
  util::write_statistics(json, "rtt_us", t.rtt_us);
  util::write_statistics(json, "diff_same_time_m", t.diff_same_time_m);
  util::write_statistics(json, "diff_at_arrival_m", t.diff_at_arrival_m);
  json.end_object();
  return json.str();
}

RunSummary parse_run_summary(std::string_view json_text, const std::string& where) {
  const nlohmann::json document = detail::parse_object(json_text, where);
  const detail::StrictObject o(document, where);
  if (!o.has("schema_version")) {
    o.fail("schema_version", "missing: written by a cosim older than this reader (schema " +
                                 std::to_string(kRunSchemaVersion) + "); rerun it to report on it");
  }
  if (const int version = o.integer("schema_version"); version != kRunSchemaVersion) {
    o.fail("schema_version", "schema " + std::to_string(version) + ", this cosim reads schema " +
                                 std::to_string(kRunSchemaVersion) +
                                 (version > kRunSchemaVersion ? ": written by a newer cosim" : ""));
  }
  RunSummary r;
  r.run_id = o.text("run_id");
  r.status = one_of(o, "status", kRunStatuses);
  r.error = o.text("error");
  r.command = o.text("command");
  r.finished_utc = o.text("finished_utc");
  r.wall_s = o.number("wall_s");
  const detail::StrictObject versions = o.object("versions");
  r.software_version = versions.text("software");
  r.protocol_version = versions.text("protocol");
  r.protobuf_version = versions.text("protobuf");
  r.backend = o.text("backend");
  r.model = o.text("model");
  r.scene = o.text("scene");
  r.scene_name = o.text("scene_name");
  r.mode = one_of(o, "mode", kModes);
  r.fps = o.number("fps");
  r.rate = o.number("rate");
  r.duration_s = o.number("duration_s");
  r.output_step_s = o.number("output_step_s");
  r.channel = o.text("channel");
  r.frame_count = o.count("frame_count");
  const detail::StrictObject parameters = o.object("parameters");
  for (const auto& [key, value] : parameters.json().items()) {
    const detail::StrictObject p = parameters.object(key);
    // A text (a file path) or a number; anything else is the number's error naming the key.
    const bool text = p.has("value") && p.json().at("value").is_string();
    r.parameters.push_back({key, text ? RunParameter::Value(p.text("value")) : RunParameter::Value(p.number("value")),
                            p.text("unit"), p.text("origin")});
  }
  r.joint_names = o.texts("joint_names");
  r.probe_names = o.texts("probe_names");
  const detail::StrictObject peer = o.object("peer");
  r.peer_kind = peer.text("kind");
  r.peer_software_version = peer.text("software_version");
  r.peer_scene = peer.text("scene");
  const detail::StrictObject s = o.object("summary");
  RunTotals& t = r.totals;
  t.frames_sent = s.count("frames_sent");
  t.reports_received = s.count("reports_received");
  t.frames_skipped_by_visual = s.count("frames_skipped_by_visual");
  t.overruns = s.count("overruns");
  t.dynamics_csv_rows = s.count("dynamics_csv_rows");
  t.delay_frames = read_statistics(s, "delay_frames");
  t.delay_sim_s = read_statistics(s, "delay_sim_s");
  t.rtt_us = read_statistics(s, "rtt_us");
  t.diff_same_time_m = read_statistics(s, "diff_same_time_m");
  t.diff_at_arrival_m = read_statistics(s, "diff_at_arrival_m");
  return r;
}

RunSummary read_run_summary(const std::filesystem::path& run_json) {
  return parse_run_summary(detail::read_small_file(run_json, kMaxRunJsonBytes, "run.json"),
                           platform::utf8(run_json));
}

}  // namespace cosim::run
