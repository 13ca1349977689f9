#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "cli/cli.h"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  oomlens::Console console;
  console.stdin_is_terminal = ::isatty(STDIN_FILENO) == 1;
  console.stdout_is_terminal = ::isatty(STDOUT_FILENO) == 1;
  console.getenv = [](const char* name) -> const char* { return std::getenv(name); };
  int code = oomlens::RunCli(argc, argv, std::cout, std::cerr, console);
  std::cout.flush();
  return code;
}
