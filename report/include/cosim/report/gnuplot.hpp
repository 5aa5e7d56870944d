#pragma once
/// @file
/// Drawing with gnuplot, for cosim-report's run plots and cosim-sweep's study plots, and text
/// safe in report.md: the
/// script's opening lines, text from a run folder made safe inside a script, gnuplot run on
/// a script, and the refusal to write through a symbolic link.

#include <filesystem>
#include <string>

namespace cosim::report {

/// The opening lines of a plot script: a w×h PNG `png` (pngcairo, DejaVu Sans 11), CSV input
/// (separator ','), a grid, the key top right.
std::string png_header(int w, int h, const std::string& png);

/// Runs gnuplot on `script` inside `dir`; throws with gnuplot's stderr on failure
/// (util::BadInputError when gnuplot is not installed). Returns what it wrote on stderr all
/// the same (warnings), kept in <name>.gnuplot.err beside the script; empty (and no file)
/// when it said nothing.
std::string run_gnuplot(const std::filesystem::path& dir, const std::filesystem::path& script);

/// A string inside gnuplot's single quotes, where only a doubled quote is special; a line end
/// (or any control character) from a run folder would end the command and start the next, so
/// it becomes '?'. Everything a run folder names goes into a script through here.
std::string gnuplot_quoted(const std::string& text);

/// Text from a run folder or a sweep file inside report.md's code spans and lines: control
/// characters (a line end would start a line of the reader's choosing) become spaces, a
/// backtick a quote.
std::string md_text(const std::string& text);

/// Throws util::BadInputError when `path` is a symbolic link: reports write into their folder
/// only, not through links.
void refuse_link(const std::filesystem::path& path);

}  // namespace cosim::report
