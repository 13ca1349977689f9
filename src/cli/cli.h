// The command line, callable in-process (tests) and from main().
#ifndef OOMLENS_CLI_CLI_H_
#define OOMLENS_CLI_CLI_H_

#include <atomic>
#include <ostream>

#include "cli/console.h"

namespace oomlens {

/// Runs oomlens with argv; writes the report to out and messages to err.
int RunCli(int argc, const char* const* argv, std::ostream& out, std::ostream& err, const Console& console);

/// RunCli on this process's stdin, stdout and stderr (the terminal and environment
/// as they are): flushes stdout and turns a failed write into its exit code, 141
/// for a closed pipe, 2 with the reason for anything else (a full disk). Signals are
/// the caller's: interrupted is set by its SIGINT handler.
int RunCliOnStdio(int argc, const char* const* argv, const std::atomic<bool>* interrupted);

}  // namespace oomlens

#endif  // OOMLENS_CLI_CLI_H_
