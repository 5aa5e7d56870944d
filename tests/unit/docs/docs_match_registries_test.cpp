// The docs list what the code registers: each closed table (backends, channel kinds, scene
// readers) against the Markdown table that documents it, by the names in the tables' first
// column. A backend or reader added without its doc row, or a row left behind by a removed
// one, fails here with both lists.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cosim/dynamics/registry/registry.hpp"
#include "cosim/protocol/channel_spec.hpp"
#include "cosim/scene/scene.hpp"

namespace cosim {
namespace {

using Names = std::set<std::string>;

std::string read_doc(const std::string& relative) {
  const std::filesystem::path path = std::filesystem::path(COSIM_SOURCE_DIR) / relative;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << "cannot read " << path;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The first backticked word of the first cell of each row of the table whose header row is
// `header` (exactly), cut at `cut` ("tcp:HOST:PORT" → "tcp" with ':'). Fails the test if the
// document has no such table.
Names first_column(const std::string& relative, std::string_view header, char cut = '\0') {
  std::istringstream lines(read_doc(relative));
  std::string line;
  bool found = false;
  while (std::getline(lines, line)) {
    if (line == header) {
      found = true;
      break;
    }
  }
  EXPECT_TRUE(found) << relative << " has no table with the header row '" << header << "'";
  Names names;
  std::getline(lines, line);  // |---|---|
  while (std::getline(lines, line) && line.starts_with("|")) {
    const std::size_t open = line.find('`');
    const std::size_t cell_end = line.find('|', 1);
    if (open == std::string::npos || open > cell_end) {
      ADD_FAILURE() << relative << ": a row of '" << header << "' without a `name` first: " << line;
      continue;
    }
    const std::size_t close = line.find('`', open + 1);
    std::string name = line.substr(open + 1, close - open - 1);
    if (cut != '\0') name = name.substr(0, name.find(cut));
    names.insert(name);
  }
  return names;
}

// "a,b" → {a, b} (empty → {}).
Names split(std::string_view list) {
  Names out;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    out.emplace(list.substr(0, comma));
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
  }
  return out;
}

Names with(Names names, const Names& more) {
  names.insert(more.begin(), more.end());
  return names;
}

TEST(Docs, BackendTablesListEveryRegisteredBackend) {
  Names registered;
  for (const auto& entry : dynamics::registry::backend_registry()) registered.emplace(entry.name);
  const Names expected = with(registered, split(COSIM_SKIPPED_BACKENDS));
  EXPECT_EQ(first_column("README.md", "| name | what | model |"), expected) << "README.md's backend table";
  EXPECT_EQ(first_column("docs/design.md", "| name | what |"), expected) << "docs/design.md#backends";
}

TEST(Docs, ChannelTableListsEveryChannelKind) {
  Names kinds;
  for (const auto& kind : protocol::channel_kinds()) kinds.emplace(kind.name);
  kinds.emplace("none");  // parse_channel_spec's "no visual side", not a kind of channel
  EXPECT_EQ(first_column("docs/protocol.md", "| value | status | what |", ':'), kinds) << "docs/protocol.md §1";
}

TEST(Docs, SceneKindTableListsEveryReader) {
  Names kinds;
  for (const auto& kind : scene::SceneModel::kinds()) kinds.emplace(kind.name);
  EXPECT_EQ(first_column("docs/scenes.md", "| kind | takes | read by |"), with(kinds, split(COSIM_SKIPPED_SCENE_KINDS)))
      << "docs/scenes.md's scene kinds";
}

}  // namespace
}  // namespace cosim
