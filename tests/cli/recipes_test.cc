// The CI recipes of docs/ci.md, run as the CI systems run them: each `run:` block
// of a GitHub workflow and each `script:` line of a GitLab job, under `bash -e`,
// in a folder holding `build/oomlens` and `logs/`. A recipe whose first command
// fails on an OOM, so that its step summary is never written, fails here.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli/cli_harness.h"

namespace oomlens {
namespace {

using json = nlohmann::json;
const std::string kSource = OOMLENS_SOURCE_DIR;

struct Recipe {
  std::string where;   // docs/ci.md:line
  std::string system;  // "github" (a run: block) or "gitlab" (a script: item)
  std::string script;
};

size_t IndentOf(const std::string& line) { return line.find_first_not_of(' '); }

// The shell of every yaml block of a document: `run: |` blocks (the lines indented
// under them), one-line `run:`, and the items of `script:`.
std::vector<Recipe> RecipesIn(const std::string& file) {
  std::vector<Recipe> out;
  std::istringstream text(ReadFile(kSource + "/" + file));
  std::vector<std::string> lines;
  for (std::string line; std::getline(text, line);) lines.push_back(line);
  bool yaml = false;
  for (size_t k = 0; k < lines.size(); ++k) {
    const std::string& line = lines[k];
    if (line.rfind("```", 0) == 0) yaml = !yaml && line == "```yaml";
    if (!yaml || IndentOf(line) == std::string::npos) continue;
    std::string body = line.substr(IndentOf(line));
    if (body.rfind("- ", 0) == 0 && body.find("run:") == 2) body = body.substr(2);
    std::string where = file + ":" + std::to_string(k + 1);
    if (body == "run: |") {
      std::string script;
      for (size_t n = k + 1; n < lines.size() && IndentOf(lines[n]) > IndentOf(line); ++n)
        script += lines[n].substr(IndentOf(lines[n])) + "\n";
      out.push_back(Recipe{where, "github", script});
    } else if (body.rfind("run: ", 0) == 0) {
      out.push_back(Recipe{where, "github", body.substr(5) + "\n"});
    } else if (body == "script:") {
      std::string script;
      for (size_t n = k + 1; n < lines.size() && IndentOf(lines[n]) > IndentOf(line); ++n) {
        std::string item = lines[n].substr(IndentOf(lines[n]));
        if (item.rfind("- ", 0) == 0) script += item.substr(2) + "\n";
      }
      out.push_back(Recipe{where, "gitlab", script});
    }
  }
  return out;
}

struct Ran {
  int code = -1;
  std::string out;
};

// Runs a recipe under bash -e in dir, as a CI runner would, with stdout kept.
Ran RunUnderBashE(const ScratchDir& dir, const Recipe& recipe) {
  dir.Write("step.sh", recipe.script);
  std::string command = "cd '" + dir.path() + "' && GITHUB_STEP_SUMMARY='" + dir.path() +
                        "/summary.md' bash -e step.sh > stdout.txt 2> stderr.txt";
  int status = std::system(command.c_str());
  return Ran{WIFEXITED(status) ? WEXITSTATUS(status) : -1, ReadFile(dir.path() + "/stdout.txt")};
}

// A folder as a CI job leaves it: the binary where the recipes run it, and logs.
void Lay(const ScratchDir& dir, const std::string& log) {
  dir.Write("logs/train.log", log);
  dir.Write("build/.keep", "");
  ASSERT_EQ(::symlink(OOMLENS_BINARY, (dir.path() + "/build/oomlens").c_str()), 0);
}

TEST(Recipes, TheCiRecipesFindAnOomFailTheStepAndStillWriteEveryReport) {
  std::vector<Recipe> recipes = RecipesIn("docs/ci.md");
  ASSERT_EQ(recipes.size(), 2u) << "one GitHub step and one GitLab job";
  std::string oom = ReadFile(kSource + "/testdata/examples/multihost_e0101.log");
  for (const Recipe& recipe : recipes) {
    SCOPED_TRACE(recipe.where + "\n" + recipe.script);
    ScratchDir dir;
    Lay(dir, oom);
    Ran ran = RunUnderBashE(dir, recipe);
    EXPECT_EQ(ran.code, 1) << "the step fails on an OOM: " << ReadFile(dir.path() + "/stderr.txt");
    if (recipe.system == "github") {
      EXPECT_NE(ran.out.find("::error title=OOM"), std::string::npos) << ran.out;
      EXPECT_EQ(ReadFile(dir.path() + "/summary.md").rfind("## oomlens: 1 OOM incident", 0), 0u);
      json sarif = json::parse(ReadFile(dir.path() + "/oomlens.sarif"));
      EXPECT_EQ(sarif["runs"][0]["results"].size(), 1u);
    } else {
      json quality = json::parse(ReadFile(dir.path() + "/gl-code-quality-report.json"));
      EXPECT_EQ(quality.size(), 1u);
      EXPECT_EQ(ReadFile(dir.path() + "/oomlens.md").rfind("## oomlens: 1 OOM incident", 0), 0u);
    }
  }
}

TEST(Recipes, TheCiRecipesPassOnALogWithoutAnOom) {
  for (const Recipe& recipe : RecipesIn("docs/ci.md")) {
    SCOPED_TRACE(recipe.where + "\n" + recipe.script);
    ScratchDir dir;
    Lay(dir, "step 100 loss 1.25\nstep 200 loss 1.10\n");
    EXPECT_EQ(RunUnderBashE(dir, recipe).code, 0) << ReadFile(dir.path() + "/stderr.txt");
    std::string summary = ReadFile(dir.path() + (recipe.system == "github" ? "/summary.md" : "/oomlens.md"));
    EXPECT_EQ(summary.rfind("## oomlens: no OOM found", 0), 0u) << summary;
  }
}

}  // namespace
}  // namespace oomlens
