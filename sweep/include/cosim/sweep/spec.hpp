#pragma once
/// @file
/// A study of many runs (docs/sweeps.md): the sweep file, read strictly, and its expansion
/// into points, each one cosim-dynamics run. Every point is checked against the backend's
/// declared parameters before anything runs.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "cosim/util/errors.hpp"

namespace cosim::sweep {

/// A parameter's value in a sweep: a number (in the parameter's unit) or a text (a path).
using Value = std::variant<double, std::string>;

/// The value as cosim-dynamics --param takes it: the shortest decimal that reads back as the
/// number, or the text.
std::string value_text(const Value& value);

/// One run of a study.
struct Point {
  std::string id;       ///< "p0007": its index, zero-padded to the study's width; its folder's name
  std::string backend;
  std::map<std::string, Value> params;  ///< the swept and base parameters given (`--param`s)
  int repetition = 0;   ///< 0 .. repetitions-1
};

/// A number of the study's own, computed from each point's dynamics.csv (docs/sweeps.md,
/// "Metrics"): a statistic of one column, or of several together, over a window of time; with
/// `against`, of the row-by-row difference to another point of the study, its reference.
struct ColumnMetric {
  enum class Stat { initial, final, min, max, max_abs, mean, rms, integral, first_nonzero_t, count_nonzero };
  std::string name;                  ///< its results.csv column
  std::string where;                 ///< "metrics[2]", for messages
  std::vector<std::string> columns;  ///< dynamics.csv columns; several only for min, max, max_abs, count_nonzero (over all of them)
  Stat stat = Stat::final;
  double from_s = -1e300, to_s = 1e300;  ///< the rows looked at: from_s <= t_s <= to_s (1 ns of slack)
  std::map<std::string, Value> against;  ///< the reference's values of swept parameters (empty: none)
  /// With `against`: per point (Spec::points order), the index of its reference point, the one
  /// with the same backend, repetition and values but these.
  std::vector<std::size_t> reference;
};

/// Points run with the recorder as the visual side (a delay study): each through the cosim
/// launcher, `--recorder`, on a private channel; results.csv gains the delay metrics.
struct RecorderSide {
  double fps = 20;                ///< --fps, unless the point sets "fps"
  std::string mode = "lockstep";  ///< --mode: lockstep, free or realtime (at rate 1), unless the point sets "mode"
};

/// "fps" and "mode" swept like parameters (with the recorder): the launcher's --fps and
/// --mode of the point, not backend parameters.
inline bool is_side_key(const std::string& key) { return key == "fps" || key == "mode"; }

/// The sweep file, as read.
struct Spec {
  std::filesystem::path file;  ///< where it was read (messages; relative paths are from its folder)
  std::vector<std::string> backends;  ///< one, or the values of a backend axis
  std::optional<std::filesystem::path> params_file;  ///< --params for every point, resolved
  std::map<std::string, Value> params;  ///< base parameters, for every point
  std::optional<double> duration_s, output_step_s;
  std::optional<RecorderSide> recorder;  ///< none: each point is cosim-dynamics --channel none
  std::vector<Point> points;  ///< expanded, in order (the first axis slowest)
  std::vector<std::string> swept;  ///< the keys the axes and samples vary, in their order ("backend" first if swept)
  std::size_t samples = 0;  ///< random draws per grid point (0: none)
  int repetitions = 1;
  std::vector<ColumnMetric> metrics;  ///< the file's own metrics, in its order
};

/// Largest sweep file read [bytes] and most points expanded: a study this big is a mistake.
inline constexpr std::uintmax_t kMaxSpecBytes = 1 << 20;
inline constexpr std::size_t kMaxPoints = 1'000'000;

/// Reads and expands a sweep file. Throws util::BadInputError with one line
/// "FILE: KEY.PATH: what is wrong" (e.g. "study.json: axes[1].linspace: expected [from, to,
/// count] with count >= 2"), or naming the point and the key for a value its backend refuses.
Spec read_spec(const std::filesystem::path& file);

/// The same from text (`file` names it in messages and anchors relative paths).
Spec parse_spec(const std::string& json_text, const std::filesystem::path& file);

}  // namespace cosim::sweep
