// The docs show what oomlens does today: every `$ oomlens ...` command in a code
// block of README.md and docs/*.md is run (from the source tree), and the lines
// written under it must appear in its output, in order. A line "..." skips any
// number of output lines; an example without output lines only has to run.
// `< FILE` feeds stdin. Commands that need a cluster (kubectl ...) are written
// without "$ " and are not run.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <sstream>
#include <string>
#include <vector>

#include "tests/cli/cli_harness.h"

namespace oomlens {
namespace {

const std::string kSource = OOMLENS_SOURCE_DIR;

struct Example {
  std::string where;  // file:line
  std::string command;
  std::vector<std::string> expected;
  std::string indent;  // of the command; its output is indented as much
};

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::vector<Example> ExamplesIn(const std::string& file) {
  std::vector<Example> out;
  std::istringstream text(ReadFile(kSource + "/" + file));
  std::string line;
  bool fenced = false;
  for (int number = 1; std::getline(text, line); ++number) {
    std::string t = Trim(line);
    if (t.rfind("```", 0) == 0) {
      fenced = !fenced;
      out.push_back(Example{});  // a block's end ends its last example's output
      continue;
    }
    if (!fenced) continue;
    if (t.rfind("$ ", 0) == 0) {
      Example e{file + ":" + std::to_string(number), t.substr(2), {}, line.substr(0, line.find('$'))};
      if (e.command.rfind("oomlens", 0) != 0) e.command.clear();  // not run; swallows its output lines
      out.push_back(e);
    } else if (!out.empty() && !out.back().command.empty()) {
      const std::string& indent = out.back().indent;
      out.back().expected.push_back(line.rfind(indent, 0) == 0 ? line.substr(indent.size()) : line);
    }
  }
  std::vector<Example> run;
  for (auto& e : out)
    if (!e.command.empty()) run.push_back(std::move(e));
  return run;
}

// Splits a command line: words, '...' and "..." quoting, and `< file`.
std::vector<std::string> Words(const std::string& command, std::string* stdin_file) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false, redirect = false;
  char quote = 0;
  auto end_word = [&] {
    if (!in_word) return;
    if (redirect) *stdin_file = word;
    else words.push_back(word);
    word.clear();
    in_word = redirect = false;
  };
  for (char c : command) {
    if (quote) {
      if (c == quote) quote = 0;
      else word += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ') {
      end_word();
    } else if (c == '<' && !in_word) {
      redirect = true;
    } else {
      word += c;
      in_word = true;
    }
  }
  end_word();
  return words;
}

std::string RightTrim(const std::string& s) {
  size_t e = s.find_last_not_of(" \t\r");
  return e == std::string::npos ? "" : s.substr(0, e + 1);
}

// "" when the expected lines appear in order ("..." skips); else what is missing.
std::string Missing(const std::string& output, const std::vector<std::string>& expected) {
  std::vector<std::string> lines;
  std::istringstream in(output);
  for (std::string l; std::getline(in, l);) lines.push_back(RightTrim(l));
  size_t at = 0;
  bool skipping = false;
  for (const auto& line : expected) {
    std::string want = RightTrim(line);
    if (Trim(want) == "...") {
      skipping = true;
      continue;
    }
    size_t found = at;
    while (skipping && found < lines.size() && lines[found] != want) ++found;
    if (found >= lines.size() || lines[found] != want) {
      return "expected line: " + want +
             "\n got line:     " + (at < lines.size() ? lines[at] : "<end of output>");
    }
    at = found + 1;
    skipping = false;
  }
  return "";
}

std::vector<std::string> DocFiles() {
  std::vector<std::string> files = {"README.md"};
  DIR* d = ::opendir((kSource + "/docs").c_str());
  while (dirent* e = d ? ::readdir(d) : nullptr) {
    std::string name = e->d_name;
    if (name.size() > 3 && name.compare(name.size() - 3, 3, ".md") == 0) files.push_back("docs/" + name);
  }
  if (d) ::closedir(d);
  return files;
}

TEST(Docs, EveryExampleCommandRunsAndPrintsWhatTheDocsShow) {
  ASSERT_EQ(::chdir(kSource.c_str()), 0);
  size_t examples = 0;
  for (const auto& file : DocFiles()) {
    for (const auto& e : ExamplesIn(file)) {
      ++examples;
      std::string stdin_file;
      std::vector<std::string> words = Words(e.command, &stdin_file);
      Console console;
      if (!stdin_file.empty()) {
        console.stdin_fd = ::open(stdin_file.c_str(), O_RDONLY);
        ASSERT_GE(console.stdin_fd, 0) << e.where << ": cannot open " << stdin_file;
      }
      words.erase(words.begin());  // "oomlens"
      CliResult r = RunOomlens(words, console);
      if (console.stdin_fd > 0) ::close(console.stdin_fd);
      EXPECT_NE(r.code, kExitError) << e.where << ": " << e.command << "\n" << r.err;
      std::string missing = Missing(r.out, e.expected);
      EXPECT_EQ(missing, "") << e.where << ": " << e.command;
    }
  }
  EXPECT_GE(examples, 10u) << "the docs should show oomlens at work";
}

}  // namespace
}  // namespace oomlens
