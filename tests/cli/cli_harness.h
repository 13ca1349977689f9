// Running the CLI in-process, and a scratch folder, for the CLI tests.
#ifndef OOMLENS_TESTS_CLI_CLI_HARNESS_H_
#define OOMLENS_TESTS_CLI_CLI_HARNESS_H_

#include <dirent.h>
#include <stdlib.h>
#include <zlib.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"

namespace oomlens {

struct CliResult {
  int code;
  std::string out, err;
};

/// Runs `oomlens args...` in-process with the given console.
inline CliResult RunOomlens(std::vector<std::string> args, const Console& console = {}) {
  args.insert(args.begin(), "oomlens");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  int code = RunCli(static_cast<int>(argv.size()), argv.data(), out, err, console);
  return {code, out.str(), err.str()};
}

// text, `times` times over, in one gzip member (compressed as it goes: a large
// repeat costs little memory).
inline std::string Gzip(const std::string& text, size_t times = 1) {
  std::string gz;
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);  // 15 + 16: the gzip wrapper
  char out[1 << 16];
  for (size_t k = 0; k < times; ++k) {
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    z.avail_in = static_cast<uInt>(text.size());
    int flush = k + 1 == times ? Z_FINISH : Z_NO_FLUSH;
    do {
      z.next_out = reinterpret_cast<Bytef*>(out);
      z.avail_out = sizeof out;
      deflate(&z, flush);
      gz.append(out, sizeof out - z.avail_out);
    } while (z.avail_out == 0);
  }
  deflateEnd(&z);
  return gz;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// "" when equal; otherwise where the two texts first differ, line by line.
inline std::string FirstDifference(const std::string& got, const std::string& want) {
  std::istringstream g(got), w(want);
  std::string gl, wl;
  for (int line = 1;; ++line) {
    bool more_g = static_cast<bool>(std::getline(g, gl));
    bool more_w = static_cast<bool>(std::getline(w, wl));
    if (!more_g && !more_w) return "";
    if (more_g != more_w || gl != wl) {
      return "line " + std::to_string(line) + "\n  got:      " + (more_g ? gl : "<end>") +
             "\n  expected: " + (more_w ? wl : "<end>");
    }
  }
}

/// Appends the files under dir (recursively) whose names end with suffix.
inline void FindFiles(const std::string& dir, const std::string& suffix, std::vector<std::string>* out) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    std::string path = dir + "/" + name;
    if (e->d_type == DT_DIR) FindFiles(path, suffix, out);
    else if (name.size() > suffix.size() &&
             name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      out->push_back(path);
  }
  ::closedir(d);
}

/// A folder under /tmp, removed with its contents when it goes out of scope.
class ScratchDir {
 public:
  ScratchDir() {
    char tmpl[] = "/tmp/oomlens-test-XXXXXX";
    path_ = ::mkdtemp(tmpl) ? tmpl : "";
  }
  ~ScratchDir() {
    if (!path_.empty()) std::system(("rm -rf '" + path_ + "'").c_str());
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::string& path() const { return path_; }
  /// Writes content to name (folders created as needed); returns the full path.
  std::string Write(const std::string& name, const std::string& content) const {
    std::string file = path_ + "/" + name;
    std::system(("mkdir -p '" + file.substr(0, file.rfind('/')) + "'").c_str());
    std::ofstream(file, std::ios::binary) << content;
    return file;
  }

 private:
  std::string path_;
};

}  // namespace oomlens

#endif  // OOMLENS_TESTS_CLI_CLI_HARNESS_H_
