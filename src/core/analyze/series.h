// Memory series: figures a job prints periodically (MaxText Memstats,
// torch.cuda.memory_allocated prints, psutil, nvidia-smi) collected per input,
// stream, signature and device, then given to the incidents that follow them.
// A steadily growing series with no OOM after it becomes an incident of its
// own (kind memory_growth) when a cause rule recognises it.
#ifndef OOMLENS_CORE_ANALYZE_SERIES_H_
#define OOMLENS_CORE_ANALYZE_SERIES_H_

#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/model/event.h"
#include "core/model/figure.h"
#include "oomlens/report.h"

namespace oomlens {

constexpr size_t kMaxSeriesPoints = 1024;  // points kept per series; more are decimated

class SeriesCollector {
 public:
  /// Adds a memory figure (sample_used_bytes; sample_limit_bytes and sample_key
  /// when printed). Figures without sample_used_bytes are ignored.
  void Add(const Figure& figure);
  /// Adds the memory in use an OOM event printed (used_bytes, allocated_bytes or
  /// in_use_bytes) to the series of its kind: repeated OOMs whose numbers grow
  /// (retries, epochs) are a series too.
  void AddOom(const Event& event);
  /// Every series, in order of first figure.
  std::vector<MemorySeries> Take();

 private:
  void AddPoint(const Figure& at, std::string_view name, std::string_view key, int64_t bytes, int64_t limit);
  struct Building {
    MemorySeries series;
    uint64_t stride = 1;  // keep every stride-th figure (doubles when points fill up)
  };
  // input index, host, signature, key (looked up with views: no copies per figure)
  using Key = std::tuple<int, std::string, std::string, std::string>;
  std::map<Key, Building, std::less<>> series_;
  // The series figures went to lately (one per device, typically): checked
  // before the map, as most figures continue one of them. Map nodes do not move.
  std::vector<std::pair<const Key*, Building*>> recent_;
  size_t next_recent_ = 0;
  Building& SeriesFor(int input_index, std::string_view host, std::string_view name, std::string_view key);
};

/// Gives each incident the series printed before it in its input (same host,
/// or a series without host): the one that grew most, with at least 3 figures.
void AttachSeries(const std::vector<MemorySeries>& series, std::vector<Incident>* incidents);

/// An incident of kind memory_growth for each series of an input without
/// incidents; the caller keeps those a cause rule recognised.
std::vector<Incident> GrowthCandidates(const std::vector<MemorySeries>& series,
                                       const std::vector<Incident>& incidents);

/// Derived facts of incident.series (series_*).
void DeriveSeriesFacts(const MemorySeries& series, Facts* derived);

}  // namespace oomlens

#endif  // OOMLENS_CORE_ANALYZE_SERIES_H_
