#include <signal.h>

#include <atomic>
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
  return oomlens::RunCliOnStdio(argc, argv, &g_interrupted);
}
