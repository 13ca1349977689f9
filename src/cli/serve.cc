#include "cli/serve.h"

#include <httplib.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <sstream>
#include <thread>

#include "cli/serve_budget.h"
#include "oomlens/render.h"
#include "oomlens/rules.h"
#include "oomlens/scanner.h"

namespace oomlens {
namespace {

const char kPolicy[] =
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors "
    "'none'";

const char kForm[] =
    "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>oomlens</title>"
    "<style>body{font:14px system-ui,sans-serif;margin:2em "
    "auto;max-width:60em}textarea{width:100%;height:18em}"
    "</style></head><body><h1>oomlens</h1><p>Paste a crash log or an error message, or choose a log file. "
    "Nothing leaves this machine.</p>"
    "<form method='post' action='/diagnose' enctype='multipart/form-data'>"
    "<textarea name='log' placeholder='RESOURCE_EXHAUSTED: ...'></textarea><p><input type='file' "
    "name='file'> "
    "<button type='submit'>Diagnose</button></p></form></body></html>\n";

void Secure(httplib::Response* res) {
  res->set_header("Content-Security-Policy", kPolicy);
  res->set_header("X-Content-Type-Options", "nosniff");
  res->set_header("X-Frame-Options", "DENY");
  // same-origin, not no-referrer: with no-referrer a browser sends "Origin: null" on
  // the page's own form post, which Refusal cannot tell from a sandboxed cross-site page
  res->set_header("Referrer-Policy", "same-origin");
}

// The body's announced length (0 when none).
size_t ContentLength(const httplib::Request& req) {
  return std::strtoull(req.get_header_value("Content-Length").c_str(), nullptr, 10);
}

// A Content-Type's media type as RFC 9110 compares it: without parameters and
// spaces, in lower case ("Text/Plain ; charset=x" is text/plain).
std::string MediaType(std::string type) {
  type = type.substr(0, type.find(';'));
  std::string out;
  for (char c : type)
    if (c != ' ' && c != '\t') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool IsLoopback(const std::string& address) {
  return address.rfind("127.", 0) == 0 || address == "::1" || address == "localhost";
}

// Why a request that a web page in a browser could make on its own is refused, or
// "" to serve it: another site's Origin (a cross-site form or fetch), a Host that
// is not this loopback server (DNS rebinding), and, for the API, a content type
// a cross-site page may send without asking (text/plain, form data).
std::string Refusal(const httplib::Request& req, const std::string& listen, int port, size_t max_body) {
  std::string host = req.get_header_value("Host");
  if (IsLoopback(listen)) {
    std::string port_text = ":" + std::to_string(port);
    bool ours = false;
    for (const char* name : {"127.0.0.1", "localhost", "[::1]"})
      ours = ours || host == name + port_text || (port == 80 && host == name) ||
             host == (listen == "::1" ? "[::1]" : listen) + port_text;
    if (!ours)
      return "403: Host '" + host + "' is not this server (it serves " + listen + port_text + " only)\n";
  }
  std::string origin = req.get_header_value("Origin");
  if (req.has_header("Origin") && origin != "http://" + host)
    return "403: requests from other sites (Origin '" + origin + "') are refused\n";
  if (req.method == "POST" && req.path == "/api/v1/diagnose") {
    std::string type = MediaType(req.get_header_value("Content-Type"));
    for (const char* simple : {"", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data"})
      if (type == simple)
        return "415: send the log as the body with a content type a web page cannot send on its own: curl "
               "--data-binary @x.log -H 'Content-Type: application/octet-stream' (got '" +
               type + "')\n";
  }
  // A Transfer-Encoding beside a Content-Length would have the body read past the
  // length reserved for it (12 x 60 MiB accepted under a 256 MiB --max-in-flight).
  if (req.method == "POST" && req.has_header("Transfer-Encoding"))
    return "411: send the body with a Content-Length and no Transfer-Encoding (curl --data-binary does)\n";
  if (req.method == "POST" && !req.has_header("Content-Length"))
    return "411: send the body with a Content-Length (curl --data-binary does)\n";
  if (ContentLength(req) > max_body)
    return "413: the log is larger than this server accepts (--max-body " + std::to_string(max_body) +
           " bytes); run the oomlens command on the file instead\n";
  return "";
}

// Diagnoses text with the loaded rules; renders it in the requested format.
std::string Diagnose(const RuleSet& rules, const Options& o, const std::string& text, Format format) {
  ScanOptions options;
  options.chip = o.chip;
  Scanner scanner(rules, options);
  scanner.ScanText(text, "<paste>");
  Report report = scanner.Finish();
  std::ostringstream out;
  RenderReport(report, format, {}, out);
  return out.str();
}

// The formats the API serves, with their content types.
const char* ContentType(Format format) {
  switch (format) {
    case Format::kJson: return "application/json";
    case Format::kMarkdown: return "text/markdown; charset=utf-8";
    case Format::kText: return "text/plain; charset=utf-8";
    case Format::kHtml: return "text/html; charset=utf-8";
    default: return nullptr;
  }
}

// Bytes of request bodies being received, summed over the workers: each request
// reserves its Content-Length before its body is read and gives it back once its
// response is written, so memory in flight stays under --max-in-flight (32 uploads
// of 60 MiB at once took 4.1 GB). A worker serves one request at a time: its
// reservation is thread-local, and a request whose response was never written
// (its connection died) gives its reservation back when the worker takes the next.
class InFlight {
 public:
  explicit InFlight(size_t limit) : limit_(limit) {}
  /// False (nothing reserved) when bytes would take the sum over the limit.
  bool Reserve(size_t bytes) {
    Release();
    if (in_flight_.fetch_add(bytes) + bytes > limit_) {
      in_flight_.fetch_sub(bytes);
      return false;
    }
    mine_ = {this, bytes};
    return true;
  }
  void Release() {
    if (mine_.owner == this) in_flight_.fetch_sub(mine_.bytes);
    if (mine_.owner == this) mine_ = {};
  }
  size_t now() const { return in_flight_.load(); }

 private:
  struct Reservation {
    InFlight* owner = nullptr;
    size_t bytes = 0;
  };
  static thread_local Reservation mine_;
  const size_t limit_;
  std::atomic<size_t> in_flight_{0};
};
thread_local InFlight::Reservation InFlight::mine_;

}  // namespace

int RunServe(const Options& o, const ServeOptions& serve, std::ostream& out, std::ostream& err,
             const Console& console) {
  RuleSet rules;
  if (!LoadRulesAndSay(o, &rules, err)) return kExitError;
  BudgetedServer server(serve.budget);
  // A connection holds a thread while it waits for its client: threads as needed,
  // a short keep-alive; the scans themselves run a few at a time.
  server.new_task_queue = [&serve] { return new GrowingPool(serve.max_connections); };
  Slots scans(std::max(2u, std::thread::hardware_concurrency()));
  server.set_keep_alive_timeout(2);
  server.set_tcp_nodelay(true);  // small responses: no 40 ms Nagle / delayed-ACK stall
  server.set_payload_max_length(serve.max_body);
  server.set_read_timeout(serve.read_timeout_seconds, 0);
  server.set_write_timeout(serve.read_timeout_seconds, 0);
  int port = serve.port;
  InFlight in_flight(serve.max_in_flight);
  server.set_pre_routing_handler(
      [&serve, &port, &in_flight](const httplib::Request& req, httplib::Response& res) {
        std::string refusal = Refusal(req, serve.listen, port, serve.max_body);  // before the body is read
        if (refusal.empty() && !in_flight.Reserve(ContentLength(req))) {
          refusal = "503: " + std::to_string(in_flight.now()) + " bytes of logs are being received already " +
                    "(--max-in-flight " + std::to_string(serve.max_in_flight) + "); retry in a moment\n";
          res.set_header("Retry-After", "1");
        }
        if (refusal.empty()) return httplib::Server::HandlerResponse::Unhandled;
        res.status = std::stoi(refusal.substr(0, 3));
        res.set_content(refusal, "text/plain; charset=utf-8");
        return httplib::Server::HandlerResponse::Handled;
      });
  server.set_post_routing_handler([&in_flight](const httplib::Request&, httplib::Response& res) {
    in_flight.Release();  // the body is read and answered
    Secure(&res);         // every response, errors too
  });
  server.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(kForm, "text/html; charset=utf-8");
  });
  server.Get("/healthz",
             [](const httplib::Request&, httplib::Response& res) { res.set_content("ok\n", "text/plain"); });
  server.Post("/diagnose", [&](const httplib::Request& req, httplib::Response& res) {
    std::string text;
    if (req.has_file("log")) text = req.get_file_value("log").content;
    if (req.has_file("file")) text += (text.empty() ? "" : "\n") + req.get_file_value("file").content;
    if (req.has_param("log")) text += req.get_param_value("log");
    Slots::Hold scan(scans);
    res.set_content(Diagnose(rules, o, text, Format::kHtml), ContentType(Format::kHtml));
  });
  server.Post("/api/v1/diagnose", [&](const httplib::Request& req, httplib::Response& res) {
    std::string name = req.has_param("format") ? req.get_param_value("format") : "json";
    std::optional<Format> format = ParseFormat(name);
    if (!format || !ContentType(*format)) {
      res.status = 400;
      res.set_content("unknown format '" + name + "': use json, markdown, html or text\n", "text/plain");
      return;
    }
    Slots::Hold scan(scans);
    res.set_content(Diagnose(rules, o, req.body, *format), ContentType(*format));
  });
  server.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.status == 413 && res.body.empty()) {
      res.set_content(
          "413: the log is larger than this server accepts (--max-body); run the oomlens command on "
          "the file instead\n",
          "text/plain");
    }
  });
  // SO_REUSEADDR only: httplib's default SO_REUSEPORT let a second server share the port silently.
  server.set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  if (port == 0) {
    port = server.bind_to_any_port(serve.listen);
  } else if (!server.bind_to_port(serve.listen, port)) {
    port = -1;
  }
  if (port < 0) {
    err << "oomlens: error: cannot listen on " << serve.listen << ":" << serve.port << ": "
        << std::strerror(errno) << " (help: is another server on that port? try another --port)\n";
    return kExitError;
  }
  server.DeepenBacklog();
  bool loopback = IsLoopback(serve.listen);
  err << "oomlens: serving on http://" << serve.listen << ":" << port << "/"
      << (loopback ? " (this machine only; --listen ADDRESS to expose it)"
                   : " (reachable from other machines)")
      << "\n";
  if (serve.on_listening) serve.on_listening(port);
  std::atomic<bool> done{false};
  std::thread watcher([&] {
    while (!done.load()) {
      if (console.interrupted && console.interrupted->load()) server.stop();
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
  bool ok = server.listen_after_bind();
  done = true;
  watcher.join();
  out.flush();
  return ok || (console.interrupted && console.interrupted->load()) ? kExitNoOom : kExitError;
}

}  // namespace oomlens
