// The tree shows the pipeline: src/core has one folder per stage, in the order of
// the table in docs/ARCHITECTURE.md. A file includes only from its own stage or a
// lower one, headers include each other without a cycle, and every file of
// src/core is named in that table.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace oomlens {
namespace {

namespace fs = std::filesystem;
const fs::path kSource = OOMLENS_SOURCE_DIR;
const fs::path kCore = kSource / "src" / "core";
constexpr int kTopStage = 1000;  // files directly in src/core: the entry points

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Stage folders in the order of their rows in the ARCHITECTURE table ("| `model/` | ...").
std::map<std::string, int> StagesFromArchitecture() {
  std::istringstream doc(Slurp(kSource / "docs" / "ARCHITECTURE.md"));
  std::map<std::string, int> stages;
  std::string line;
  while (std::getline(doc, line)) {
    if (line.rfind("| `", 0) != 0) continue;
    size_t end = line.find("/` |");
    if (end == std::string::npos) continue;
    stages[line.substr(3, end - 3)] = static_cast<int>(stages.size());
  }
  return stages;
}

// Files of src/core, relative to it ("analyze/derive.h", "scanner.cc").
std::vector<std::string> CoreFiles() {
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(kCore))
    if (entry.is_regular_file()) files.push_back(fs::relative(entry.path(), kCore).generic_string());
  return files;
}

std::string StageOf(const std::string& relative) {
  size_t slash = relative.find('/');
  return slash == std::string::npos ? "" : relative.substr(0, slash);
}

// The "core/..." files a file includes, relative to src/core.
std::vector<std::string> CoreIncludes(const std::string& relative) {
  std::istringstream text(Slurp(kCore / relative));
  std::vector<std::string> includes;
  std::string line;
  const std::string directive = "#include \"core/";
  while (std::getline(text, line)) {
    if (line.rfind(directive, 0) != 0) continue;
    size_t end = line.find('"', directive.size());
    includes.push_back(line.substr(directive.size(), end - directive.size()));
  }
  return includes;
}

TEST(Layout, EveryStageFolderHasARowAndEveryRowAFolder) {
  auto stages = StagesFromArchitecture();
  ASSERT_GE(stages.size(), 5u) << "docs/ARCHITECTURE.md lost its table of stage folders";
  std::set<std::string> folders;
  for (const auto& entry : fs::directory_iterator(kCore))
    if (entry.is_directory()) folders.insert(entry.path().filename().string());
  for (const auto& folder : folders)
    EXPECT_TRUE(stages.count(folder)) << "src/core/" << folder << "/ has no row in docs/ARCHITECTURE.md";
  for (const auto& [stage, order] : stages)
    EXPECT_TRUE(folders.count(stage)) << "docs/ARCHITECTURE.md names " << stage << "/, which src/core lacks";
}

TEST(Layout, EveryCoreFileIsNamedInTheArchitectureTable) {
  std::string doc = Slurp(kSource / "docs" / "ARCHITECTURE.md");
  for (const auto& file : CoreFiles()) {
    std::string name = fs::path(file).filename().string();
    std::string module = fs::path(file).stem().string();
    bool named = doc.find("`" + name + "`") != std::string::npos || doc.find("`" + module + "`") != std::string::npos;
    EXPECT_TRUE(named) << "src/core/" << file << " is not named in docs/ARCHITECTURE.md's table";
  }
}

TEST(Layout, NoIncludeGoesUpTheStages) {
  auto stages = StagesFromArchitecture();
  auto order = [&](const std::string& file) {
    std::string stage = StageOf(file);
    return stage.empty() ? kTopStage : (stages.count(stage) ? stages[stage] : -1);
  };
  for (const auto& file : CoreFiles())
    for (const auto& include : CoreIncludes(file)) {
      EXPECT_TRUE(fs::exists(kCore / include)) << file << " includes core/" << include << ", which does not exist";
      EXPECT_LE(order(include), order(file)) << "src/core/" << file << " (stage " << StageOf(file)
                                             << ") includes core/" << include << " from a higher stage";
    }
}

// Depth-first search; returns the cycle found as "a -> b -> a", or "".
std::string FindCycle(const std::string& node, const std::map<std::string, std::vector<std::string>>& edges,
                      std::map<std::string, int>* state, std::vector<std::string>* path) {
  (*state)[node] = 1;
  path->push_back(node);
  auto it = edges.find(node);
  if (it != edges.end())
    for (const auto& next : it->second) {
      if ((*state)[next] == 1) {
        std::string cycle;
        for (auto p = std::find(path->begin(), path->end(), next); p != path->end(); ++p) cycle += *p + " -> ";
        return cycle + next;
      }
      if ((*state)[next] == 0) {
        std::string cycle = FindCycle(next, edges, state, path);
        if (!cycle.empty()) return cycle;
      }
    }
  (*state)[node] = 2;
  path->pop_back();
  return "";
}

TEST(Layout, HeadersIncludeEachOtherWithoutACycle) {
  std::map<std::string, std::vector<std::string>> edges;
  for (const auto& file : CoreFiles())
    if (fs::path(file).extension() == ".h") edges[file] = CoreIncludes(file);
  std::map<std::string, int> state;
  for (const auto& [file, includes] : edges) {
    if (state[file] != 0) continue;
    std::vector<std::string> path;
    EXPECT_EQ(FindCycle(file, edges, &state, &path), "") << "headers of src/core include each other in a cycle";
  }
}

}  // namespace
}  // namespace oomlens
