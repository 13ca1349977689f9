// Pickles written by Python's own pickle module (/usr/bin/python3), for the tests
// of the readers of pickles and memory snapshots.
#ifndef OOMLENS_TESTS_CORE_PICKLED_H_
#define OOMLENS_TESTS_CORE_PICKLED_H_

#include <cstdio>
#include <string>

namespace oomlens {

/// The bytes /usr/bin/python3 pickles from `expression` with `protocol` (pickle,
/// sys and os are imported); empty when Python could not run.
inline std::string Pickled(const std::string& expression, int protocol) {
  std::string command = "/usr/bin/python3 -c 'import pickle, sys, os; sys.stdout.buffer.write(pickle.dumps(" +
                        expression + ", protocol=" + std::to_string(protocol) + "))'";
  FILE* pipe = ::popen(command.c_str(), "r");
  std::string out;
  char buf[4096];
  for (size_t n; pipe && (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  if (pipe) ::pclose(pipe);
  return out;
}

}  // namespace oomlens

#endif  // OOMLENS_TESTS_CORE_PICKLED_H_
