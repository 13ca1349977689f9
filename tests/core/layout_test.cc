// The tree shows the pipeline: src/core has one folder per stage, in the order of
// the table in docs/ARCHITECTURE.md, and each public header of include/oomlens/ is
// the face of one stage (the table's "face" column). A file includes only from its
// own stage or a lower one, public headers counted, headers include each other
// without a cycle, and every file of src/core is named in that table.
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
const fs::path kPublic = kSource / "include" / "oomlens";

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The cells of a row of the ARCHITECTURE table ("| `model/` | `report.h` | ..."),
// trimmed; empty for any other line.
std::vector<std::string> Cells(const std::string& line) {
  std::vector<std::string> cells;
  if (line.rfind("| `", 0) != 0) return cells;
  std::istringstream row(line.substr(1));
  std::string cell;
  while (std::getline(row, cell, '|')) {
    size_t begin = cell.find_first_not_of(' '), end = cell.find_last_not_of(' ');
    cells.push_back(begin == std::string::npos ? "" : cell.substr(begin, end - begin + 1));
  }
  return cells;
}

// The names between backticks in a cell ("`report.h`, `facts.h`" -> report.h, facts.h).
std::vector<std::string> Quoted(const std::string& cell) {
  std::vector<std::string> names;
  for (size_t open = cell.find('`'); open != std::string::npos; open = cell.find('`', open + 1)) {
    size_t close = cell.find('`', open + 1);
    if (close == std::string::npos) break;
    names.push_back(cell.substr(open + 1, close - open - 1));
    open = close;
  }
  return names;
}

struct Stages {
  std::map<std::string, int> order;         // folder -> its row
  std::map<std::string, std::string> face;  // public header ("scanner.h") -> folder
};

// Stage folders in the order of their rows in the ARCHITECTURE table, and the
// public headers each row names as its face.
Stages StagesFromArchitecture() {
  std::istringstream doc(Slurp(kSource / "docs" / "ARCHITECTURE.md"));
  Stages stages;
  std::string line;
  while (std::getline(doc, line)) {
    std::vector<std::string> cells = Cells(line);
    if (cells.size() < 3 || cells[0].size() < 4 || cells[0].substr(cells[0].size() - 2) != "/`") continue;
    std::string folder = cells[0].substr(1, cells[0].size() - 3);
    stages.order[folder] = static_cast<int>(stages.order.size());
    for (const auto& header : Quoted(cells[1])) stages.face[header] = folder;
  }
  return stages;
}

// Files of src/core, relative to it ("analyze/derive.h", "run/scanner.cc").
std::vector<std::string> CoreFiles() {
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(kCore))
    if (entry.is_regular_file()) files.push_back(fs::relative(entry.path(), kCore).generic_string());
  return files;
}

// The public headers ("scanner.h").
std::vector<std::string> PublicHeaders() {
  std::vector<std::string> headers;
  for (const auto& entry : fs::directory_iterator(kPublic))
    if (entry.is_regular_file()) headers.push_back(entry.path().filename().string());
  return headers;
}

// A file of the tree as the include graph names it: "analyze/derive.h" for
// src/core/analyze/derive.h, "oomlens/scanner.h" for a public header.
std::string FolderOf(const std::string& node) { return node.substr(0, node.find('/')); }

fs::path PathOf(const std::string& node) {
  return FolderOf(node) == "oomlens" ? kPublic / node.substr(8) : kCore / node;
}

// The stage a file belongs to: its folder, or for a public header the row it is the face of ("" if none).
std::string StageOf(const Stages& stages, const std::string& node) {
  if (FolderOf(node) != "oomlens") return FolderOf(node);
  auto it = stages.face.find(node.substr(8));
  return it == stages.face.end() ? "" : it->second;
}

// The tree's files a file includes: "core/x/y.h" as "x/y.h", "oomlens/z.h" as is.
std::vector<std::string> Includes(const std::string& node) {
  std::istringstream text(Slurp(PathOf(node)));
  std::vector<std::string> includes;
  std::string line;
  for (const std::string directive : {"#include \"core/", "#include \"oomlens/"}) {
    text.clear();
    text.seekg(0);
    while (std::getline(text, line)) {
      if (line.rfind(directive, 0) != 0) continue;
      size_t end = line.find('"', directive.size());
      std::string name = line.substr(directive.size(), end - directive.size());
      includes.push_back(directive.find("oomlens") == std::string::npos ? name : "oomlens/" + name);
    }
  }
  return includes;
}

// Every file of the graph: the files of src/core and the public headers.
std::vector<std::string> AllNodes() {
  std::vector<std::string> nodes = CoreFiles();
  for (const auto& header : PublicHeaders()) nodes.push_back("oomlens/" + header);
  return nodes;
}

TEST(Layout, EveryStageFolderHasARowAndEveryRowAFolder) {
  auto stages = StagesFromArchitecture().order;
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
    bool named =
        doc.find("`" + name + "`") != std::string::npos || doc.find("`" + module + "`") != std::string::npos;
    EXPECT_TRUE(named) << "src/core/" << file << " is not named in docs/ARCHITECTURE.md's table";
  }
}

TEST(Layout, EveryPublicHeaderIsTheFaceOfOneStage) {
  Stages stages = StagesFromArchitecture();
  for (const auto& header : PublicHeaders())
    EXPECT_TRUE(stages.face.count(header))
        << "include/oomlens/" << header
        << " is the face of no row of docs/ARCHITECTURE.md (its \"face\" column)";
  for (const auto& [header, stage] : stages.face)
    EXPECT_TRUE(fs::exists(kPublic / header)) << "docs/ARCHITECTURE.md names " << header << " as the face of "
                                              << stage << "/, which include/oomlens lacks";
}

TEST(Layout, NoIncludeGoesUpTheStages) {
  Stages stages = StagesFromArchitecture();
  auto order = [&](const std::string& node) {
    auto it = stages.order.find(StageOf(stages, node));
    return it == stages.order.end() ? -1 : it->second;
  };
  for (const auto& node : AllNodes())
    for (const auto& include : Includes(node)) {
      EXPECT_TRUE(fs::exists(PathOf(include))) << node << " includes " << include << ", which does not exist";
      EXPECT_LE(order(include), order(node))
          << node << " (stage " << StageOf(stages, node) << ") includes " << include
          << " from a higher stage, " << StageOf(stages, include);
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
        for (auto p = std::find(path->begin(), path->end(), next); p != path->end(); ++p)
          cycle += *p + " -> ";
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
  for (const auto& node : AllNodes())
    if (fs::path(node).extension() == ".h") edges[node] = Includes(node);
  std::map<std::string, int> state;
  for (const auto& [file, includes] : edges) {
    if (state[file] != 0) continue;
    std::vector<std::string> path;
    EXPECT_EQ(FindCycle(file, edges, &state, &path), "") << "headers include each other in a cycle";
  }
}

}  // namespace
}  // namespace oomlens
