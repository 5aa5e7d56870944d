// Drawing with gnuplot (gnuplot.hpp).
#include "cosim/report/gnuplot.hpp"

#include <fstream>
#include <iterator>
#include <stdexcept>
#include <system_error>

#include "cosim/platform/paths.hpp"
#include "cosim/platform/process.hpp"
#include "cosim/util/errors.hpp"

namespace cosim::report {

namespace fs = std::filesystem;

std::string png_header(int w, int h, const std::string& png) {
  return "set terminal pngcairo size " + std::to_string(w) + "," + std::to_string(h) +
         " font 'DejaVu Sans,11'\nset output '" + png +
         "'\nset datafile separator ','\nset grid\nset key top right opaque\n";
}

void refuse_link(const fs::path& path) {
  if (platform::is_link(path)) {
    throw util::BadInputError(platform::utf8(path) +
                              ": a symbolic link; reports and plots are written into their folder only, not through links");
  }
}

/// Runs gnuplot on script inside dir; throws with gnuplot's stderr on failure. Returns what it
/// wrote on stderr all the same (warnings), kept in <name>.gnuplot.err beside the script; empty
/// (and no file) when it said nothing.
std::string run_gnuplot(const fs::path& dir, const fs::path& script) {
  fs::path err_path = dir / script.stem();
  err_path += ".gnuplot.err";
  refuse_link(err_path);
  int code = 0;
  try {
    platform::Process gnuplot("gnuplot", {platform::utf8(script.filename())},
                              {.working_dir = platform::utf8(dir), .stderr_file = platform::utf8(err_path)});
    code = gnuplot.wait();
  } catch (const platform::ProcessStartError& e) {
    std::error_code ec;
    fs::remove(err_path, ec);  // made for a gnuplot that never ran
    if (e.program_not_found()) {
      throw util::BadInputError("the gnuplot program is not installed (Debian: package gnuplot-nox; Windows: gnuplot on PATH): cannot draw " +
                               platform::utf8(script));
    }
    throw util::BadInputError(std::string(e.what()) + ": cannot draw " + platform::utf8(script));
  }
  std::string err;
  {
    std::ifstream err_in(err_path);
    err.assign(std::istreambuf_iterator<char>(err_in), std::istreambuf_iterator<char>());
  }
  if (code != 0) throw std::runtime_error("gnuplot failed on " + platform::utf8(script) + ": " + err);
  while (!err.empty() && (err.back() == '\n' || err.back() == '\r')) err.pop_back();
  if (err.empty()) fs::remove(err_path);
  return err;
}

/// A string inside gnuplot's single quotes, where only a doubled quote is special; a line end
/// (or any control character) from a run folder would end the command and start the next, so
/// it becomes '?'. Everything a run folder names goes into a script through here.
std::string gnuplot_quoted(const std::string& text) {
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    out += u < 0x20 || u == 0x7f ? '?' : c;
    if (c == '\'') out += '\'';
  }
  return out;
}

// Text from a run folder inside report.md's code spans and lines: control characters (a line
/// end would start a line of the reader's choosing) become spaces, a backtick a quote.
std::string md_text(const std::string& text) {
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    out += u < 0x20 || u == 0x7f ? ' ' : c == '`' ? '\'' : c;
  }
  return out;
}

}  // namespace cosim::report
