// A line on stderr while a large scan runs at a terminal, as pv or lnav show one:
// "oomlens: 1.21G of 2.00G read (60%), 412.00M/s", rewritten in place and erased
// when the scan ends, so the report (on stdout) and a pipe of stderr are unchanged.
#ifndef OOMLENS_CLI_PROGRESS_H_
#define OOMLENS_CLI_PROGRESS_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>

namespace oomlens {

/// "1.21G of 2.00G read (60%), 412.00M/s"; total 0: the size is not known (a pipe).
std::string ProgressText(uint64_t read, uint64_t total, double seconds);

/// Shows the progress of *read (bytes, counted by the scan) on err from its own
/// thread: first after `delay` (a scan that ends sooner shows nothing), then every
/// `interval`. The destructor stops it and erases the line.
class ProgressLine {
 public:
  ProgressLine(std::ostream& err, const std::atomic<uint64_t>* read, uint64_t total,
               std::chrono::milliseconds delay = std::chrono::seconds(1),
               std::chrono::milliseconds interval = std::chrono::milliseconds(250));
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

 private:
  void Run(std::chrono::milliseconds delay, std::chrono::milliseconds interval);

  std::ostream& err_;
  const std::atomic<uint64_t>* read_;
  uint64_t total_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool shown_ = false;  // a line is on the terminal: the destructor erases it
  std::thread thread_;
};

}  // namespace oomlens

#endif  // OOMLENS_CLI_PROGRESS_H_
