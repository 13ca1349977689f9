// The CLI's ground, which every command stands on: its exit codes and what it may
// ask of the terminal and environment (as ninja's exit_status.h).
#ifndef OOMLENS_CLI_CONSOLE_H_
#define OOMLENS_CLI_CONSOLE_H_

#include <atomic>
#include <cstdint>
#include <functional>

namespace oomlens {

/// Process exit codes (docs/cli.md).
enum ExitCode {
  kExitNoOom = 0,          ///< read everything, found no OOM
  kExitOomFound = 1,       ///< at least one OOM incident
  kExitError = 2,          ///< usage, input or rules error
  kExitInterrupted = 130,  ///< SIGINT
  kExitBrokenPipe = 141,   ///< the reader of stdout went away (e.g. `| head`)
};

/// What the CLI may ask of its surroundings; tests fake it.
struct Console {
  bool stdin_is_terminal = false;
  bool stdout_is_terminal = false;
  bool stderr_is_terminal = false;  ///< a progress line may be shown there
  /// Inputs this large (or a pipe) get a progress line at a terminal; tests lower it.
  uint64_t progress_from_bytes = uint64_t{256} << 20;
  std::function<const char*(const char*)> getenv = [](const char*) -> const char* { return nullptr; };
  int stdin_fd = 0;
  /// Set by a SIGINT handler; the scan stops when it turns true. May be null.
  const std::atomic<bool>* interrupted = nullptr;
};

}  // namespace oomlens

#endif  // OOMLENS_CLI_CONSOLE_H_
