// The command line, callable in-process (tests) and from main().
#ifndef OOMLENS_CLI_CLI_H_
#define OOMLENS_CLI_CLI_H_

#include <atomic>
#include <functional>
#include <ostream>
#include <string>

namespace oomlens {

/// Process exit codes (docs/cli.md).
enum ExitCode {
  kExitNoOom = 0,        ///< read everything, found no OOM
  kExitOomFound = 1,     ///< at least one OOM incident
  kExitError = 2,        ///< usage, input or rules error
  kExitInterrupted = 130,  ///< SIGINT
  kExitBrokenPipe = 141,   ///< the reader of stdout went away (e.g. `| head`)
};

/// What the CLI may ask of its surroundings; tests fake it.
struct Console {
  bool stdin_is_terminal = false;
  bool stdout_is_terminal = false;
  std::function<const char*(const char*)> getenv = [](const char*) -> const char* { return nullptr; };
  int stdin_fd = 0;
  /// Set by a SIGINT handler; the scan stops when it turns true. May be null.
  const std::atomic<bool>* interrupted = nullptr;
};

/// Runs oomlens with argv; writes the report to out and messages to err.
int RunCli(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
           const Console& console);

/// RunCli on this process's stdin, stdout and stderr (the terminal and environment
/// as they are): flushes stdout and turns a failed write into its exit code, 141
/// for a closed pipe, 2 with the reason for anything else (a full disk). Signals are
/// the caller's: interrupted is set by its SIGINT handler.
int RunCliOnStdio(int argc, const char* const* argv, const std::atomic<bool>* interrupted);

}  // namespace oomlens

#endif  // OOMLENS_CLI_CLI_H_
