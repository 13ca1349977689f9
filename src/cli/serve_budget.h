// `oomlens serve`'s defences against slow clients: a deadline per request, not per
// read (80 slowloris connections dribbling a byte every few seconds held all the
// workers and /healthz timed out), and a pool that grows with the connections.
#ifndef OOMLENS_CLI_SERVE_BUDGET_H_
#define OOMLENS_CLI_SERVE_BUDGET_H_

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "cli/serve.h"

namespace oomlens {

/// An httplib::Server whose connections read a request and write its response each
/// within a TransferBudget; a request that runs out gets 408 and the connection closes.
class BudgetedServer : public httplib::Server {
 public:
  explicit BudgetedServer(TransferBudget budget) : budget_(budget) {}
  /// Once bound: lets the kernel queue SOMAXCONN connections, not httplib's 5 (a
  /// burst of 80 connections waited for SYN retries, a second or more each).
  void DeepenBacklog();

 private:
  bool process_and_close_socket(socket_t sock) override;
  bool WaitForRequest(socket_t sock) const;

  const TransferBudget budget_;
};

/// httplib's TaskQueue with threads made as connections need them, up to a maximum
/// (a connection waiting for a slow client holds a thread, not the whole server).
/// Idle threads wait for the next connection; past the maximum, connections queue.
class GrowingPool : public httplib::TaskQueue {
 public:
  explicit GrowingPool(size_t max_threads) : max_threads_(max_threads) {}
  ~GrowingPool() override { shutdown(); }
  void enqueue(std::function<void()> fn) override;
  void shutdown() override;

 private:
  void Work();

  const size_t max_threads_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  size_t idle_ = 0;
  bool stopping_ = false;
};

/// At most `count` holders at once; Hold waits for a free one. Bounds the scans a
/// server runs at once (memory and CPU), whatever the number of connections.
class Slots {
 public:
  explicit Slots(size_t count) : free_(count) {}
  class Hold {
   public:
    explicit Hold(Slots& slots);
    ~Hold();
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;

   private:
    Slots& slots_;
  };

 private:
  std::mutex mutex_;
  std::condition_variable freed_;
  size_t free_;
};

}  // namespace oomlens

#endif  // OOMLENS_CLI_SERVE_BUDGET_H_
