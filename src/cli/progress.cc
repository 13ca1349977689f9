#include "cli/progress.h"

#include "oomlens/size.h"

namespace oomlens {

std::string ProgressText(uint64_t read, uint64_t total, double seconds) {
  std::string text = FormatSize(static_cast<int64_t>(read));
  if (total > 0) {
    uint64_t percent = read >= total ? 100 : read * 100 / total;
    text += " of " + FormatSize(static_cast<int64_t>(total)) + " read (" + std::to_string(percent) + "%)";
  } else {
    text += " read";
  }
  if (seconds > 0) text += ", " + FormatComputedSize(static_cast<double>(read) / seconds) + "/s";
  return text;
}

ProgressLine::ProgressLine(std::ostream& err, const std::atomic<uint64_t>* read, uint64_t total,
                           std::chrono::milliseconds delay, std::chrono::milliseconds interval)
    : err_(err), read_(read), total_(total), thread_([this, delay, interval] { Run(delay, interval); }) {}

ProgressLine::~ProgressLine() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
  if (shown_) err_ << "\r\x1b[K" << std::flush;  // the line goes; the report follows on a clean terminal
}

void ProgressLine::Run(std::chrono::milliseconds delay, std::chrono::milliseconds interval) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (wake_.wait_for(lock, delay, [this] { return stop_; })) return;
  do {
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    err_ << "\r\x1b[Koomlens: " << ProgressText(read_->load(std::memory_order_relaxed), total_, seconds)
         << std::flush;
    shown_ = true;
  } while (!wake_.wait_for(lock, interval, [this] { return stop_; }));
}

}  // namespace oomlens
