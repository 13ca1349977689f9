// Which files a command line names: files, stdin, directories (with -r),
// include/exclude globs, and the host each file stands for.
#ifndef OOMLENS_CLI_INPUTS_H_
#define OOMLENS_CLI_INPUTS_H_

#include <atomic>
#include <string>
#include <vector>

#include "oomlens/scanner.h"

namespace oomlens {

struct InputOptions {
  bool recursive = false;
  bool follow = false;                        ///< follow symlinks found in directories (-L); loops are cut
  const std::atomic<bool>* cancel = nullptr;  ///< an interrupt ends the walk; may be null
  std::vector<std::string> include;           ///< globs a file found in a directory must match (any)
  std::vector<std::string> exclude;           ///< globs that drop a file found in a directory
  std::string host_pattern;                   ///< RE2 with one group; empty: the file name when several files
};

using InputFile = ScanInput;

/// Expands args into files, in a deterministic order (directories sorted).
/// Explicit files are kept even when a glob would drop them. Returns false and
/// sets *error for a bad --host-from-path pattern, or a directory with no file to read.
bool ExpandInputs(const std::vector<std::string>& args, const InputOptions& options,
                  std::vector<InputFile>* out, std::string* error);

}  // namespace oomlens

#endif  // OOMLENS_CLI_INPUTS_H_
