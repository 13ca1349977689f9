#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <cstdlib>
#include <iostream>

#include "cli/cli.h"

namespace {

std::atomic<bool> g_interrupted{false};

void OnInterrupt(int) { g_interrupted.store(true); }

}  // namespace

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  ::signal(SIGPIPE, SIG_IGN);  // a closed stdout becomes a write error, handled as exit 141
  struct sigaction action {};
  action.sa_handler = OnInterrupt;
  ::sigaction(SIGINT, &action, nullptr);
  oomlens::Console console;
  console.stdin_is_terminal = ::isatty(STDIN_FILENO) == 1;
  console.stdout_is_terminal = ::isatty(STDOUT_FILENO) == 1;
  console.getenv = [](const char* name) -> const char* { return std::getenv(name); };
  console.interrupted = &g_interrupted;
  errno = 0;
  int code = oomlens::RunCli(argc, argv, std::cout, std::cerr, console);
  std::cout.flush();
  if (code != oomlens::kExitBrokenPipe && !std::cout) code = oomlens::kExitBrokenPipe;
  int error = errno;
  if (code == oomlens::kExitBrokenPipe && error != 0 && error != EPIPE) {  // a full disk is no closed pipe
    std::cerr << "oomlens: error: writing the report failed: " << std::strerror(error)
              << " (help: free space where stdout goes, or write elsewhere)\n";
    return oomlens::kExitError;
  }
  return code;
}
