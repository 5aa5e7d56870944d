#include "cosim/test/run_json.hpp"

#include <boost/property_tree/json_parser.hpp>

#include "cosim/run/run_summary.hpp"

namespace cosim::test {

boost::property_tree::ptree read_run_json(const std::filesystem::path& run_dir) {
  // Every run.json a test looks at also passes the strict reader the programs use.
  (void)run::read_run_summary(run_dir / "run.json");
  boost::property_tree::ptree tree;
  boost::property_tree::read_json((run_dir / "run.json").string(), tree);
  return tree;
}

}  // namespace cosim::test
