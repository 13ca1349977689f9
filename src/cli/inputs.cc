#include "cli/inputs.h"

#include <dirent.h>
#include <fnmatch.h>
#include <re2/re2.h>
#include <sys/stat.h>

#include <algorithm>
#include <set>
#include <utility>

#include "oomlens/scanner.h"

namespace oomlens {
namespace {

// The host a file's path names: group 1 of pattern (RE2 syntax) matched in path,
// or "" when it does not match. Returns false and sets *error for a bad pattern.
bool HostFromPath(const std::string& path, const std::string& pattern, std::string* host,
                  std::string* error) {
  RE2::Options options;
  options.set_log_errors(false);
  RE2 re(pattern, options);
  if (!re.ok() || re.NumberOfCapturingGroups() < 1) {
    *error = re.ok() ? "the pattern needs a capturing group, e.g. 'worker-(\\d+)'" : re.error();
    return false;
  }
  std::string captured;
  *host = RE2::PartialMatch(path, re, &captured) ? captured : "";
  return true;
}

bool IsDirectory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool MatchesAny(const std::vector<std::string>& globs, const std::string& path) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  for (const auto& glob : globs) {
    const std::string& subject = glob.find('/') == std::string::npos ? name : path;
    if (::fnmatch(glob.c_str(), subject.c_str(), 0) == 0) return true;
  }
  return false;
}

// Directories already walked, by device and inode: a symlink loop ends here.
using Visited = std::set<std::pair<dev_t, ino_t>>;

// Appends the regular files under dir, sorted, depth first. Symlinks are
// followed only with options.follow (and never into a directory walked
// already); FIFOs, devices and sockets are skipped, as grep -r and rg do, so a
// walk always ends.
void Walk(const std::string& dir, const InputOptions& options, Visited* visited,
          std::vector<std::string>* out) {
  if (options.cancel && options.cancel->load()) return;
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0 || !visited->insert({st.st_dev, st.st_ino}).second) return;
  DIR* d = ::opendir(dir.c_str());
  if (!d) {
    out->push_back(dir);  // the scanner reports why it cannot be read
    return;
  }
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  for (const auto& name : names) {
    std::string path = dir + (dir.back() == '/' ? "" : "/") + name;
    struct stat entry;
    if (::lstat(path.c_str(), &entry) != 0) continue;
    if (S_ISLNK(entry.st_mode) && (!options.follow || ::stat(path.c_str(), &entry) != 0)) continue;
    if (S_ISDIR(entry.st_mode)) {
      Walk(path, options, visited, out);
      continue;
    }
    if (!S_ISREG(entry.st_mode)) continue;  // a FIFO or a device would never end
    if (!options.include.empty() && !MatchesAny(options.include, path)) continue;
    if (MatchesAny(options.exclude, path)) continue;
    out->push_back(path);
  }
}

}  // namespace

bool ExpandInputs(const std::vector<std::string>& args, const InputOptions& options,
                  std::vector<InputFile>* out, std::string* error) {
  std::vector<std::string> paths;
  for (const auto& arg : args) {
    if (arg != "-" && options.recursive && IsDirectory(arg)) {
      Visited visited;
      size_t before = paths.size();
      Walk(arg, options, &visited, &paths);
      if (paths.size() == before && !(options.cancel && options.cancel->load())) {
        *error = arg + ": no file to read in it" +
                 std::string(options.include.empty() ? "" : " matching --include") +
                 " (help: check the path and the globs; a CI job whose logs are missing should not pass)";
        return false;
      }
    } else {
      paths.push_back(arg);  // a directory without -r: the scanner says to use -r
    }
  }
  for (const auto& path : paths) {
    InputFile file{path, ""};
    if (!options.host_pattern.empty()) {
      if (!HostFromPath(path, options.host_pattern, &file.host, error)) {
        *error = "--host-from-path '" + options.host_pattern + "': " + *error;
        return false;
      }
    }  // else the merge of several files' reports names hosts after the files
    out->push_back(std::move(file));
  }
  return true;
}

}  // namespace oomlens
