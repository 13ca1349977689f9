// `oomlens serve` on a free loopback port, exercised with a real HTTP client.
#include "cli/serve.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <sstream>
#include <thread>
#include <vector>

namespace oomlens {
namespace {

const char kSeed[] =
    "XlaRuntimeError: RESOURCE_EXHAUSTED: Error loading program 'jit_embedding_pipeline_step_fn': Attempting "
    "to "
    "reserve 29.49G at the bottom of memory. That was not possible. There are 147.64M free, 0B reserved, and "
    "147.64M reservable.";

// RunServe on a free loopback port in a thread, until the object goes.
class RunningServer {
 public:
  explicit RunningServer(ServeOptions options) {
    console_.interrupted = &stop_;
    options.port = 0;
    std::promise<int> bound;
    options.on_listening = [&bound](int port) { bound.set_value(port); };
    thread_ = std::thread([this, options] { code_ = RunServe(Options{}, options, out_, err_, console_); });
    port_ = bound.get_future().get();
  }
  ~RunningServer() {
    stop_ = true;
    thread_.join();
    EXPECT_EQ(code_, 0);
  }
  int port() const { return port_; }
  std::string err() const { return err_.str(); }

 private:
  std::atomic<bool> stop_{false};
  Console console_;
  std::ostringstream out_, err_;
  std::thread thread_;
  int port_ = 0, code_ = -1;
};

ServeOptions SmallBodies() {
  ServeOptions options;
  options.max_body = 4096;
  return options;
}

class ServeTest : public ::testing::Test {
 protected:
  httplib::Client Client() { return httplib::Client("127.0.0.1", port_); }
  RunningServer server_{SmallBodies()};
  int port_ = server_.port();
};

TEST_F(ServeTest, PageApiHealthAndLimits) {
  auto client = Client();
  auto health = client.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->body, "ok\n");

  auto page = client.Get("/");
  ASSERT_TRUE(page);
  EXPECT_NE(page->body.find("<form method='post' action='/diagnose'"), std::string::npos);
  EXPECT_EQ(page->get_header_value("Content-Security-Policy").rfind("default-src 'none'", 0), 0u);

  auto api = client.Post("/api/v1/diagnose", kSeed, "application/octet-stream");
  ASSERT_TRUE(api);
  EXPECT_EQ(api->status, 200);
  EXPECT_NE(api->body.find("\"kind\": \"tpu_program_load\""), std::string::npos);
  EXPECT_NE(api->body.find("\"cause\": \"oversize\""), std::string::npos);

  httplib::MultipartFormDataItems form = {{"log", kSeed, "", ""}};
  auto posted = client.Post("/diagnose", form);  // the no-JavaScript path: a plain form post
  ASSERT_TRUE(posted);
  EXPECT_NE(posted->body.find("jit_embedding_pipeline_step_fn"), std::string::npos);
  EXPECT_NE(posted->body.find("<svg"), std::string::npos);

  std::string evil =
      std::string(kSeed).replace(std::string(kSeed).find("jit_embedding"), 13, "<script>x()</script>");
  auto html = client.Post("/api/v1/diagnose?format=html", evil, "application/octet-stream");
  ASSERT_TRUE(html);
  EXPECT_EQ(html->body.find("<script>"), std::string::npos);
  EXPECT_NE(html->body.find("&lt;script&gt;"), std::string::npos);

  auto big = client.Post("/api/v1/diagnose", std::string(8192, 'x'), "application/octet-stream");
  ASSERT_TRUE(big);
  EXPECT_EQ(big->status, 413);
  EXPECT_NE(big->body.find("(--max-body 4096 bytes)"), std::string::npos) << big->body;

  auto bad = client.Post("/api/v1/diagnose?format=yaml", kSeed, "application/octet-stream");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_NE(server_.err().find("(this machine only; --listen ADDRESS to expose it)"), std::string::npos);
}

// A second server on a port in use is refused (httplib's default SO_REUSEPORT let
// it start silently and take half the traffic).
TEST_F(ServeTest, ASecondServerOnTheSamePortIsRefused) {
  ServeOptions options;
  options.port = port_;
  std::atomic<bool> stop{true};
  Console console;
  console.interrupted = &stop;
  std::ostringstream out, err;
  int code = RunServe(Options{}, options, out, err, console);
  EXPECT_EQ(code, kExitError);
  EXPECT_NE(err.str().find(":" + std::to_string(port_) + ": Address already in use"), std::string::npos)
      << err.str();
  EXPECT_TRUE(Client().Get("/healthz"));  // the first one still serves
}

// What a web page in a browser could make the server do on its own is refused,
// before the body is read: another site's Origin, a Host that is not this server
// (DNS rebinding), the API with a content type a page sends without asking (curl's
// default form data among them: a 415 that says how, not a misleading 413).
// Every response, errors included, carries the security headers.
TEST_F(ServeTest, CrossSiteRequestsAreRefusedAndEveryResponseIsSecured) {
  auto client = Client();
  auto rebound = client.Get("/", {{"Host", "evil.example:" + std::to_string(port_)}});
  ASSERT_TRUE(rebound);
  EXPECT_EQ(rebound->status, 403);
  EXPECT_NE(rebound->body.find("Host 'evil.example:"), std::string::npos);
  auto cross =
      client.Post("/api/v1/diagnose", {{"Origin", "http://evil.example"}}, kSeed, "application/octet-stream");
  ASSERT_TRUE(cross);
  EXPECT_EQ(cross->status, 403);
  httplib::MultipartFormDataItems form = {{"log", kSeed, "", ""}};
  auto form_post = client.Post("/diagnose", {{"Origin", "null"}}, form);
  ASSERT_TRUE(form_post);
  EXPECT_EQ(form_post->status, 403);
  auto same = client.Post("/diagnose", {{"Origin", "http://127.0.0.1:" + std::to_string(port_)}}, form);
  ASSERT_TRUE(same);
  EXPECT_EQ(same->status, 200);
  for (const char* type :
       {"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"}) {
    auto simple = client.Post("/api/v1/diagnose", std::string(9000, 'x'), type);
    ASSERT_TRUE(simple);
    EXPECT_EQ(simple->status, 415) << type;
    EXPECT_NE(simple->body.find("-H 'Content-Type: application/octet-stream'"), std::string::npos);
  }
  auto missing = client.Get("/nope");
  ASSERT_TRUE(missing);
  for (const httplib::Response* res : {&*rebound, &*cross, &*missing}) {
    EXPECT_EQ(res->get_header_value("X-Content-Type-Options"), "nosniff") << res->status;
    EXPECT_NE(res->get_header_value("Content-Security-Policy").find("frame-ancestors 'none'"),
              std::string::npos);
  }
}

// A raw connection to 127.0.0.1:port that has sent `request` and may send more.
class RawClient {
 public:
  RawClient(int port, const std::string& request) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    Send(request);
  }
  ~RawClient() { ::close(fd_); }
  bool connected() const { return connected_; }
  bool Answered() const {
    pollfd fd{fd_, POLLIN, 0};
    return ::poll(&fd, 1, 0) > 0;
  }
  void Send(const std::string& bytes) {
    if (::write(fd_, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size())) connected_ = false;
  }
  std::string ReadAll() {  // until the server closes or 5 s pass
    std::string out;
    timeval timeout{5, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    char buf[4096];
    for (ssize_t n; (n = ::read(fd_, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
    return out;
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
};

// Bodies being received at once are bounded (--max-in-flight: 32 uploads of 60 MiB
// took 4.1 GB): past the bound a request gets 503 before its body is read, and the
// room comes back once a body is answered. A body without a length gets 411.
TEST(ServeLimits, BodiesInFlightAreBoundedAndGiveTheirRoomBack) {
  ServeOptions options = SmallBodies();
  options.max_in_flight = 6000;
  RunningServer server(options);
  int port = server.port();
  std::string head = "POST /api/v1/diagnose HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                     "\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n";
  std::string body(4000, 'x');
  std::unique_ptr<RawClient> slow;  // its body not sent yet
  httplib::Client client("127.0.0.1", port);
  int status = 0;
  for (int tries = 0; tries < 100 && status != 503;
       ++tries) {                   // until the slow request has reserved its room
    if (!slow || slow->Answered())  // a 503 itself, when a post below reserved first: again
      slow = std::make_unique<RawClient>(port, head + "Content-Length: 4000\r\n\r\n");
    ASSERT_TRUE(slow->connected());
    auto res = client.Post("/api/v1/diagnose", body, "application/octet-stream");
    ASSERT_TRUE(res);
    status = res->status;
    if (status != 503) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(status, 503);
  slow->Send(body);
  EXPECT_NE(slow->ReadAll().find("HTTP/1.1 200"), std::string::npos);
  auto after = client.Post("/api/v1/diagnose", body, "application/octet-stream");
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 200);  // the room came back

  RawClient chunked(port, head + "Transfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n0\r\n\r\n");
  EXPECT_NE(chunked.ReadAll().find("HTTP/1.1 411"), std::string::npos);
}

// A deadline per request, not per read: 80 slowloris connections, each with half a
// head sent, held all 64 workers of a fixed pool and /healthz timed out; a client
// that dribbles a byte at a time never ran out of the per-read timeout.
TEST(ServeLimits, SlowClientsRunOutOfTimeAndDoNotHoldTheServer) {
  ServeOptions options;
  options.budget.grace_seconds = 1;
  RunningServer server(options);
  std::string head = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(server.port()) + "\r\n";
  std::vector<std::unique_ptr<RawClient>> holding;
  for (int i = 0; i < 80; ++i) holding.push_back(std::make_unique<RawClient>(server.port(), head));
  httplib::Client client("127.0.0.1", server.port());
  client.set_read_timeout(2, 0);
  auto health = client.Get("/healthz");
  ASSERT_TRUE(health) << "a server held by 80 slow clients";
  EXPECT_EQ(health->body, "ok\n");

  RawClient dribbler(server.port(), head);
  std::atomic<bool> answered{false};
  std::thread dribble([&] {  // a byte every 100 ms: each read is well inside the per-read timeout
    for (int i = 0; i < 50 && !answered; ++i) {
      dribbler.Send("X");
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
  auto start = std::chrono::steady_clock::now();
  std::string response = dribbler.ReadAll();
  answered = true;
  dribble.join();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(response.rfind("HTTP/1.1 408 Request Timeout", 0), 0u) << response;
  EXPECT_NE(response.find("--request-timeout"), std::string::npos);
  EXPECT_LT(seconds, 4.5) << "the 1 s budget ends the request, not the client's patience";
}

// An upload slower than 1 MiB/s past the grace runs out of time (attack review S5:
// at the old 64 KiB/s floor, four uploads of 64 MiB at 80 KiB/s held the whole
// in-flight budget for 17 minutes). 256 KiB/s: it got through before.
TEST(ServeLimits, AnUploadBelowTheRateFloorRunsOutOfTime) {
  ServeOptions options;
  options.budget.grace_seconds = 1;
  RunningServer server(options);
  std::string head =
      "POST /api/v1/diagnose HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(server.port()) +
      "\r\nContent-Type: application/octet-stream\r\nContent-Length: " + std::to_string(4 << 20) + "\r\n\r\n";
  RawClient slow(server.port(), head);
  std::atomic<bool> answered{false};
  std::thread upload([&] {  // 32 KiB every 125 ms
    for (int i = 0; i < 128 && !answered && !slow.Answered(); ++i) {
      slow.Send(std::string(32 << 10, 'a'));
      std::this_thread::sleep_for(std::chrono::milliseconds(125));
    }
  });
  auto start = std::chrono::steady_clock::now();
  std::string response = slow.ReadAll();
  answered = true;
  upload.join();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(response.rfind("HTTP/1.1 408 Request Timeout", 0), 0u) << response.substr(0, 200);
  EXPECT_NE(response.find("1 s per 1 MiB"), std::string::npos) << response;
  EXPECT_LT(seconds, 6.0) << "the 4 MiB upload would have taken 16 s";
}

// Attack review S1, S2, S4: a Content-Length beside a chunked body is refused before
// the body is read (it bypassed --max-in-flight); a head past 64 KiB closes the
// connection (300 MB of headers were accepted); the content-type check compares
// media types as HTTP does, whatever their case and spaces.
TEST(ServeLimits, SmuggledBodiesHugeHeadsAndDisguisedTypesAreRefused) {
  RunningServer server(SmallBodies());
  int port = server.port();
  std::string host = "Host: 127.0.0.1:" + std::to_string(port) + "\r\n";
  RawClient smuggled(port, "POST /api/v1/diagnose HTTP/1.1\r\n" + host +
                               "Content-Type: application/octet-stream\r\nContent-Length: 1\r\n"
                               "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                               "1000\r\n" +
                               std::string(4096, 'x') + "\r\n0\r\n\r\n");
  std::string refused = smuggled.ReadAll();
  EXPECT_EQ(refused.rfind("HTTP/1.1 411", 0), 0u) << refused.substr(0, 80);
  EXPECT_NE(refused.find("no Transfer-Encoding"), std::string::npos);

  std::string headers;
  for (int i = 0; headers.size() < 100 * 1024; ++i)
    headers += "X-A" + std::to_string(i) + ": " + std::string(1000, 'a') + "\r\n";
  RawClient huge(port, "GET /healthz HTTP/1.1\r\n" + host + headers + "\r\n");
  EXPECT_EQ(huge.ReadAll().find("200 OK"), std::string::npos) << "a 100 KiB head was served";

  httplib::Client client("127.0.0.1", port);
  for (const char* type : {"Text/Plain", " text/plain ; charset=utf-8", "MULTIPART/FORM-DATA; boundary=x"}) {
    auto simple = client.Post("/api/v1/diagnose", kSeed, type);
    ASSERT_TRUE(simple);
    EXPECT_EQ(simple->status, 415) << "'" << type << "'";
  }
  auto health = client.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->body, "ok\n");  // and the server still serves
}

// Attack review D3: requests pipelined in one write each get their response, in
// order (only the first was answered).
TEST(ServeLimits, PipelinedRequestsAreAllAnswered) {
  RunningServer server(SmallBodies());
  std::string host = "Host: 127.0.0.1:" + std::to_string(server.port()) + "\r\n";
  std::string post =
      "POST /api/v1/diagnose?format=text HTTP/1.1\r\n" + host +
      "Content-Type: application/octet-stream\r\nContent-Length: " + std::to_string(sizeof kSeed - 1) +
      "\r\n\r\n" + kSeed;
  RawClient pipelined(server.port(), "GET /healthz HTTP/1.1\r\n" + host + "\r\n" + post +
                                         "GET /healthz HTTP/1.1\r\n" + host + "Connection: close\r\n\r\n");
  std::string responses = pipelined.ReadAll();
  size_t ok = 0;
  for (size_t at = responses.find("HTTP/1.1 200"); at != std::string::npos;
       at = responses.find("HTTP/1.1 200", at + 1))
    ++ok;
  EXPECT_EQ(ok, 3u) << responses.substr(0, 300);
  EXPECT_NE(responses.find("oversize"), std::string::npos) << "the pipelined POST was not diagnosed";
}

// Ctrl-C stops the server at once, not when its slowest client gives up.
TEST(ServeLimits, StoppingDoesNotWaitForSlowClients) {
  auto server = std::make_unique<RunningServer>(ServeOptions{});
  RawClient holding(server->port(), "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // its head half read
  auto start = std::chrono::steady_clock::now();
  server.reset();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 2.0);
}

}  // namespace
}  // namespace oomlens
