// `oomlens serve`: a local web page to paste a log into, and a JSON API.
#ifndef OOMLENS_CLI_SERVE_H_
#define OOMLENS_CLI_SERVE_H_

#include <functional>
#include <ostream>
#include <string>

#include "cli/commands.h"

namespace oomlens {

/// How long a client may take to send a request, or to take its response:
/// `grace_seconds` plus one second per `min_bytes_per_second` bytes moved. A
/// slowloris that sends a byte every few seconds runs out after about the grace;
/// a large upload at a fair rate never does. The floor is 1 MiB/s, so a body of the
/// largest size may hold its share of --max-in-flight for 84 s at most (at 64 KiB/s
/// four slow uploads held all of it for 17 minutes: attack review S5).
struct TransferBudget {
  int grace_seconds = 20;
  size_t min_bytes_per_second = 1 << 20;
};

struct ServeOptions {
  std::string listen = "127.0.0.1";
  int port = 8080;                             ///< 0: any free port (reported through on_listening)
  size_t max_body = 64 << 20;                  ///< larger requests get 413
  size_t max_in_flight = 256 << 20;            ///< bodies being received at once, summed: more gets 503
  int read_timeout_seconds = 10;               ///< for each read and write
  TransferBudget budget;                       ///< for each request and each response: past it, 408
  size_t max_connections = 1024;               ///< served at once (a thread each); more wait their turn
  std::function<void(int port)> on_listening;  ///< called once the socket is bound
};

/// Serves until SIGINT (console.interrupted) or an error. Returns an exit code.
int RunServe(const Options& o, const ServeOptions& serve, std::ostream& out, std::ostream& err,
             const Console& console);

}  // namespace oomlens

#endif  // OOMLENS_CLI_SERVE_H_
