// Fuzz target: the strict readers of the records between programs, run.json (cosim-report,
// the launcher, sweeps read run folders that may be shared, downloaded or edited) and
// visual.json. The input is parsed as text, as read_run_summary does after its size check.
//
// Oracles, besides the sanitizers:
// - the only error is util::BadInputError, one line starting with "<where>:";
// - a document read is written again by to_json, and that text reads back and writes the same
//   bytes (the writer's output is a fixed point of read-then-write).

#include <cosim/run/run_summary.hpp>
#include <cosim/run/visual_summary.hpp>
#include <cosim/util/errors.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "support/fuzz_support.hpp"

namespace {

using cosim::fuzz::check;

template <class Parse>
void check_reader(std::string_view text, const std::string& where, Parse parse) {
  try {
    const auto first = parse(text, where);
    const std::string written = cosim::run::to_json(first);
    const std::string again = cosim::run::to_json(parse(written, "rewritten"));
    check(again == written, "to_json(parse(to_json(x))) differs from to_json(x)");
  } catch (const cosim::util::BadInputError& e) {
    const std::string_view what = e.what();
    check(cosim::fuzz::starts_with(what, where + ": "), "error does not start with the file: " + std::string(what));
    check(what.find('\n') == std::string_view::npos, "error of more than one line: " + std::string(what));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  return cosim::fuzz::guarded([&] {
    check_reader(text, "run.json", [](std::string_view t, const std::string& w) {
      return cosim::run::parse_run_summary(t, w);
    });
    check_reader(text, "visual.json", [](std::string_view t, const std::string& w) {
      return cosim::run::parse_visual_summary(t, w);
    });
  });
}
