// Many inputs scanned on threads, one scanner each, merged in input order.
#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include "oomlens/merge.h"
#include "oomlens/scanner.h"

namespace oomlens {
namespace {

// Reports of inputs finished in any order, merged in input order as soon as each
// one's turn comes: memory holds the reports finished ahead of their turn, not all.
class InOrderMerger {
 public:
  InOrderMerger(const RuleSet& rules, const std::string& chip, bool several)
      : merger_(rules, chip, several) {}
  void Add(size_t k, Report&& part) {
    std::lock_guard<std::mutex> lock(mutex_);
    waiting_.emplace(k, std::move(part));
    for (auto it = waiting_.find(next_); it != waiting_.end(); it = waiting_.find(++next_)) {
      merger_.Add(std::move(it->second));
      waiting_.erase(it);
    }
  }
  Report Finish() { return merger_.Finish(); }

 private:
  std::mutex mutex_;
  std::map<size_t, Report> waiting_;
  size_t next_ = 0;
  ReportMerger merger_;
};

}  // namespace

Report ScanEach(const std::vector<ScanInput>& inputs, const RuleSet& rules, const ScanOptions& options,
                int jobs, int stdin_fd, bool* read_all) {
  InOrderMerger merged(rules, options.chip, inputs.size() > 1);
  std::atomic<bool> all_read{true};
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t k = next++; k < inputs.size(); k = next++) {
      if (options.cancel && options.cancel->load()) {  // the inputs not begun are not read
        Report skipped;
        skipped.interrupted = true;
        merged.Add(k, std::move(skipped));
        continue;
      }
      Scanner scanner(rules, options);
      const ScanInput& in = inputs[k];
      bool ok =
          in.path == "-" ? scanner.ScanFd(stdin_fd, "<stdin>", in.host) : scanner.ScanFile(in.path, in.host);
      if (!ok) all_read = false;
      merged.Add(k, scanner.Finish());
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < std::max(jobs, 1); ++t) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  *read_all = *read_all && all_read;
  return merged.Finish();
}

}  // namespace oomlens
