// `oomlens serve`: a local web page to paste a log into, and a JSON API.
#ifndef OOMLENS_CLI_SERVE_H_
#define OOMLENS_CLI_SERVE_H_

#include <functional>
#include <ostream>
#include <string>

#include "cli/commands.h"

namespace oomlens {

struct ServeOptions {
  std::string listen = "127.0.0.1";
  int port = 8080;                    ///< 0: any free port (reported through on_listening)
  size_t max_body = 64 << 20;         ///< larger requests get 413
  size_t max_in_flight = 256 << 20;   ///< bodies being received at once, summed: more gets 503
  int read_timeout_seconds = 10;
  std::function<void(int port)> on_listening;  ///< called once the socket is bound
};

/// Serves until SIGINT (console.interrupted) or an error. Returns an exit code.
int RunServe(const Options& o, const ServeOptions& serve, std::ostream& out, std::ostream& err,
             const Console& console);

}  // namespace oomlens

#endif  // OOMLENS_CLI_SERVE_H_
