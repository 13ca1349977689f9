#include "cli/serve_budget.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>

namespace oomlens {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kMaxHeadBytes = 64 * 1024;  // a request line and its headers

// One direction's allowance: grace + moved / rate seconds from its first use.
class Allowance {
 public:
  explicit Allowance(TransferBudget budget) : budget_(budget) {}
  /// Milliseconds left; the clock starts at the first call after a Restart.
  int64_t MillisLeft() {
    Clock::time_point now = Clock::now();
    if (!started_) start_ = now;
    started_ = true;
    double allowed = budget_.grace_seconds + static_cast<double>(moved_) / budget_.min_bytes_per_second;
    double elapsed = std::chrono::duration<double>(now - start_).count();
    return static_cast<int64_t>((allowed - elapsed) * 1000);
  }
  void Moved(size_t bytes) { moved_ += bytes; }
  void Restart() { started_ = false, moved_ = 0; }
  bool started() const { return started_; }

 private:
  const TransferBudget budget_;
  Clock::time_point start_;
  bool started_ = false;
  size_t moved_ = 0;
};

// "ip", port of a socket's own (peer false) or remote end.
void Endpoint(socket_t sock, bool peer, std::string& ip, int& port) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  auto* any = reinterpret_cast<sockaddr*>(&address);
  if ((peer ? ::getpeername(sock, any, &length) : ::getsockname(sock, any, &length)) != 0) return;
  char host[NI_MAXHOST], service[NI_MAXSERV];
  if (::getnameinfo(any, length, host, sizeof host, service, sizeof service,
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0)
    return;
  ip = host;
  port = std::atoi(service);
}

// httplib's socket stream with a TransferBudget on each direction on top of the
// per-read and per-write timeouts. Reads are buffered: httplib reads a request's
// head one byte at a time. Once either direction runs out, every call fails.
class BudgetedStream : public httplib::Stream {
 public:
  BudgetedStream(socket_t sock, const std::atomic<socket_t>& listening, TransferBudget budget,
                 int read_timeout_ms, int write_timeout_ms)
      : sock_(sock),
        listening_(listening),
        read_timeout_ms_(read_timeout_ms),
        write_timeout_ms_(write_timeout_ms),
        receiving_(budget),
        sending_(budget) {}

  bool is_readable() const override { return Wait(POLLIN, read_timeout_ms_, receiving_); }
  bool is_writable() const override { return Wait(POLLOUT, write_timeout_ms_, sending_); }
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override { Endpoint(sock_, true, ip, port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { Endpoint(sock_, false, ip, port); }
  socket_t socket() const override { return sock_; }

  /// The request ran out of time before its response began: it deserves a 408.
  bool ran_out_receiving() const { return ran_out_ && !sending_.started(); }
  bool ran_out() const { return ran_out_; }
  /// Bytes of the next request (pipelined behind this one) already read.
  bool buffered() const { return buffer_begin_ < buffer_end_; }
  /// The next request on the connection: its own allowances, the bytes read ahead kept.
  void NextRequest() {
    receiving_.Restart();
    sending_.Restart();
    head_bytes_ = 0;
  }

 private:
  bool Wait(short events, int timeout_ms, Allowance& allowance) const;

  const socket_t sock_;
  const std::atomic<socket_t>& listening_;  // INVALID_SOCKET once the server stops
  const int read_timeout_ms_, write_timeout_ms_;
  mutable Allowance receiving_, sending_;
  mutable bool ran_out_ = false;
  size_t head_bytes_ = 0;  // read one at a time since the last response: a request's head
  char buffer_[4096];
  size_t buffer_begin_ = 0, buffer_end_ = 0;
};

// Waits for the socket in slices of 100 ms, so that a server told to stop does not
// wait for its slowest client.
bool BudgetedStream::Wait(short events, int timeout_ms, Allowance& allowance) const {
  for (int waited_ms = 0; !ran_out_ && listening_ != INVALID_SOCKET && waited_ms < timeout_ms;
       waited_ms += 100) {
    int64_t left = allowance.MillisLeft();
    if (left <= 0) ran_out_ = true;
    pollfd fd{sock_, events, 0};
    int ready =
        ran_out_ ? 0
                 : ::poll(&fd, 1, static_cast<int>(std::min<int64_t>({100, left, timeout_ms - waited_ms})));
    if (ready > 0) return true;
    if (ready < 0 && errno != EINTR) return false;
  }
  return false;
}

ssize_t BudgetedStream::read(char* ptr, size_t size) {
  sending_.Restart();  // the response's clock starts once the request is read
  // httplib reads a head a byte at a time, with no bound on its lines (300 MB of
  // headers were accepted): past kMaxHeadBytes the connection closes.
  if (size == 1 && ++head_bytes_ > kMaxHeadBytes) return -1;
  if (buffer_begin_ == buffer_end_) {
    if (!is_readable()) return -1;
    bool direct = size >= sizeof buffer_;  // a body's large reads skip the buffer
    ssize_t got;
    do got = ::recv(sock_, direct ? ptr : buffer_, direct ? size : sizeof buffer_, 0);
    while (got < 0 && errno == EINTR);
    if (got > 0) receiving_.Moved(static_cast<size_t>(got));
    if (direct || got <= 0) return got;
    buffer_begin_ = 0, buffer_end_ = static_cast<size_t>(got);
  }
  size_t n = std::min(size, buffer_end_ - buffer_begin_);
  std::memcpy(ptr, buffer_ + buffer_begin_, n);
  buffer_begin_ += n;
  return static_cast<ssize_t>(n);
}

ssize_t BudgetedStream::write(const char* ptr, size_t size) {
  head_bytes_ = 0;
  if (!is_writable()) return -1;
  ssize_t sent;
  do sent = ::send(sock_, ptr, size, MSG_NOSIGNAL);
  while (sent < 0 && errno == EINTR);
  if (sent > 0) sending_.Moved(static_cast<size_t>(sent));
  return sent;
}

// Best effort, never blocking: the client that ran out may not be reading.
void SendTimeout(socket_t sock, TransferBudget budget) {
  size_t rate = budget.min_bytes_per_second;
  std::string per =
      rate % (1 << 20) == 0 ? std::to_string(rate >> 20) + " MiB" : std::to_string(rate >> 10) + " KiB";
  std::string body = "408: the request did not arrive in time (" + std::to_string(budget.grace_seconds) +
                     " s plus 1 s per " + per + "; --request-timeout)\n";
  std::string response =
      "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Type: text/plain\r\n"
      "Content-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body;
  (void)::send(sock, response.data(), response.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

}  // namespace

void BudgetedServer::DeepenBacklog() { ::listen(svr_sock_, SOMAXCONN); }

// Waits up to the keep-alive timeout for the next request's first byte (or the
// peer's close), giving up at once when the server stops.
bool BudgetedServer::WaitForRequest(socket_t sock) const {
  for (time_t waited_ms = 0; waited_ms <= keep_alive_timeout_sec_ * 1000; waited_ms += 100) {
    if (svr_sock_ == INVALID_SOCKET) return false;
    pollfd fd{sock, POLLIN, 0};
    int ready = ::poll(&fd, 1, 100);
    if (ready > 0) return true;
    if (ready < 0 && errno != EINTR) return false;
  }
  return false;
}

// httplib's keep-alive loop (process_server_socket) with a BudgetedStream per request.
bool BudgetedServer::process_and_close_socket(socket_t sock) {
  bool ok = false;
  int read_ms = static_cast<int>(read_timeout_sec_ * 1000 + read_timeout_usec_ / 1000);
  int write_ms = static_cast<int>(write_timeout_sec_ * 1000 + write_timeout_usec_ / 1000);
  // One stream for the connection: requests pipelined in one write are read ahead
  // into its buffer, and a stream per request lost them (one response to six requests).
  BudgetedStream stream(sock, svr_sock_, budget_, read_ms, write_ms);
  for (size_t left = keep_alive_max_count_; left > 0 && (stream.buffered() || WaitForRequest(sock)); --left) {
    stream.NextRequest();
    bool closed = false;
    ok = process_request(stream, left == 1, closed, nullptr);
    if (stream.ran_out_receiving()) SendTimeout(sock, budget_);
    if (!ok || closed || stream.ran_out()) break;
  }
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return ok;
}

// A thread the system refuses (EAGAIN at its thread limit) aborted the server: the
// connection then waits in the queue for a thread that has one already; with none
// at all, it is served here, on the accepting thread.
void GrowingPool::enqueue(std::function<void()> fn) {
  std::unique_lock<std::mutex> lock(mutex_);
  jobs_.push_back(std::move(fn));
  if (idle_ < jobs_.size() && threads_.size() < max_threads_) {
    try {
      threads_.emplace_back([this] { Work(); });
    } catch (const std::system_error&) {
      if (threads_.empty()) {
        std::function<void()> job = std::move(jobs_.back());
        jobs_.pop_back();
        lock.unlock();
        job();
        return;
      }
    }
  }
  ready_.notify_one();
}

void GrowingPool::shutdown() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_all();
  for (std::thread& thread : threads_) thread.join();
  threads_.clear();
}

void GrowingPool::Work() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    while (jobs_.empty() && !stopping_) {
      ++idle_;
      ready_.wait(lock);
      --idle_;
    }
    if (jobs_.empty()) return;  // stopping, and every queued connection served
    std::function<void()> job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    job();
    lock.lock();
  }
}

Slots::Hold::Hold(Slots& slots) : slots_(slots) {
  std::unique_lock<std::mutex> lock(slots_.mutex_);
  slots_.freed_.wait(lock, [this] { return slots_.free_ > 0; });
  --slots_.free_;
}

Slots::Hold::~Hold() {
  {
    std::lock_guard<std::mutex> lock(slots_.mutex_);
    ++slots_.free_;
  }
  slots_.freed_.notify_one();
}

}  // namespace oomlens
