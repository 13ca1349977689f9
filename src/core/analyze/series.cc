#include "core/analyze/series.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "core/model/ascii.h"
#include "core/model/fact_values.h"
#include "oomlens/size.h"

namespace oomlens {
namespace {

constexpr uint64_t kMinFiguresToAttach = 3;
constexpr uint64_t kMinFiguresAlone = 5;

double Growth(const MemorySeries& s) {
  return s.points.empty() ? 0 : Gap(s.points.back().bytes, s.points.front().bytes);
}

// Least-squares slope of bytes over the figure index, per figure.
double Slope(const MemorySeries& s, uint64_t stride) {
  double n = static_cast<double>(s.points.size());
  if (n < 2) return 0;
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < s.points.size(); ++i) {
    double x = static_cast<double>(i), y = static_cast<double>(s.points[i].bytes);
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  double denominator = n * sxx - sx * sx;
  return denominator == 0 ? 0 : (n * sxy - sx * sy) / denominator / static_cast<double>(stride);
}

}  // namespace

void SeriesCollector::Add(const Figure& figure) {
  if (!figure.used) return;
  AddPoint(figure, figure.title, figure.key ? std::string_view(figure.key->text) : std::string_view(),
           figure.used->integer, figure.limit ? figure.limit->integer : -1);
}

void SeriesCollector::AddOom(const Event& event) {
  for (const char* name : {"used_bytes", "allocated_bytes", "in_use_bytes"}) {
    const FactValue* used = FactIn(event.facts, name);
    if (!used) continue;
    const FactValue* limit = FactIn(event.facts, "limit_bytes");
    if (!limit) limit = FactIn(event.facts, "capacity_bytes");
    AddPoint(FigureOf(event), "memory in use at each " + event.kind + " failure", "", used->integer,
             limit ? limit->integer : -1);
    return;
  }
}

SeriesCollector::Building& SeriesCollector::SeriesFor(int input_index, std::string_view host,
                                                      std::string_view name, std::string_view key) {
  constexpr size_t kRecent = 16;
  // Devices' keys differ mostly in their last byte ("TPU_0" ... "TPU_7"): tested first.
  auto same = [](std::string_view a, std::string_view b) {
    return a.size() == b.size() && (a.empty() || a.back() == b.back()) && SameBytes(a, b);
  };
  for (const auto& [k, building] : recent_) {
    if (std::get<0>(*k) == input_index && same(std::get<3>(*k), key) && same(std::get<2>(*k), name) &&
        same(std::get<1>(*k), host))
      return *building;
  }
  auto view =
      std::tuple<int, std::string_view, std::string_view, std::string_view>(input_index, host, name, key);
  auto it = series_.find(view);
  if (it == series_.end())
    it = series_.emplace(Key{input_index, std::string(host), std::string(name), std::string(key)}, Building{})
             .first;
  std::pair<const Key*, Building*> entry{&it->first, &it->second};
  if (recent_.size() < kRecent) {
    recent_.push_back(entry);
  } else {
    recent_[next_recent_] = entry;
    next_recent_ = (next_recent_ + 1) % kRecent;
  }
  return it->second;
}

void SeriesCollector::AddPoint(const Figure& at, std::string_view name, std::string_view key, int64_t bytes,
                               int64_t limit) {
  Building& b = SeriesFor(at.input_index, at.host, name, key);
  MemorySeries& s = b.series;
  if (s.figures == 0) {
    s.name = name;
    s.key = key;
    s.host = at.host;
    s.input_index = at.input_index;
    s.first = Location{*at.input, at.line};
    s.last = s.first;
  }
  if (limit >= 0) s.limit_bytes = limit;
  s.last.line = at.line;
  if (at.time_seconds >= 0) {
    if (s.first_seconds < 0) s.first_seconds = at.time_seconds;
    s.last_seconds = at.time_seconds;
  }
  if (s.figures++ % b.stride != 0) return;
  s.points.push_back(SeriesPoint{at.line, bytes});
  if (s.points.size() < kMaxSeriesPoints) return;
  std::vector<SeriesPoint> halved;  // keep every other point, and from now on every 2*stride-th figure
  for (size_t i = 0; i < s.points.size(); i += 2) halved.push_back(s.points[i]);
  s.points.swap(halved);
  b.stride *= 2;
}

std::vector<MemorySeries> SeriesCollector::Take() {
  std::vector<MemorySeries> out;
  for (auto& [key, b] : series_) out.push_back(std::move(b.series));
  series_.clear();
  recent_.clear();
  std::stable_sort(out.begin(), out.end(), [](const MemorySeries& a, const MemorySeries& b) {
    return std::make_pair(a.input_index, a.first.line) < std::make_pair(b.input_index, b.first.line);
  });
  return out;
}

void AttachSeries(const std::vector<MemorySeries>& series, std::vector<Incident>* incidents) {
  for (auto& incident : *incidents) {
    const MemorySeries* best = nullptr;
    for (const auto& s : series) {
      bool same_stream = s.host.empty() || incident.hosts.empty() || incident.hosts.count(s.host);
      if (s.input_index != incident.first_input_index || !same_stream || s.figures < kMinFiguresToAttach ||
          s.first.line > incident.first.line)
        continue;
      if (!best || Growth(s) > Growth(*best)) best = &s;
    }
    if (best) incident.series = *best;
  }
}

std::vector<Incident> GrowthCandidates(const std::vector<MemorySeries>& series,
                                       const std::vector<Incident>& incidents) {
  std::vector<Incident> out;
  for (const auto& s : series) {
    bool input_has_incident = std::any_of(incidents.begin(), incidents.end(), [&s](const Incident& i) {
      return i.first_input_index == s.input_index;
    });
    if (input_has_incident || s.figures < kMinFiguresAlone) continue;
    Incident i;
    i.kind = "memory_growth";
    i.title = s.name + " grew";
    i.signature = "memory_series";
    i.occurrences = 1;
    i.first = s.first;
    i.first_input_index = s.input_index;
    i.seen.inputs = {s.input_index};
    i.seen.last_input = s.input_index;
    if (!s.host.empty()) i.hosts.insert(s.host);
    if (!s.key.empty()) i.devices.insert(s.key);
    i.series = s;
    out.push_back(std::move(i));
  }
  return out;
}

void DeriveSeriesFacts(const MemorySeries& s, Facts* derived) {
  if (s.figures == 0 || s.points.empty()) return;
  uint64_t stride = std::max<uint64_t>(1, (s.figures + s.points.size() - 1) / s.points.size());
  int64_t first = s.points.front().bytes, last = s.points.back().bytes, peak = first;
  size_t rising = 0;
  for (size_t i = 1; i < s.points.size(); ++i) {
    peak = std::max(peak, s.points[i].bytes);
    if (s.points[i].bytes >= s.points[i - 1].bytes) ++rising;
  }
  (*derived)["series_samples"] = CountValue(static_cast<int64_t>(s.figures));
  (*derived)["series_name"] = TextValue(s.name + (s.key.empty() ? "" : " on " + s.key));
  (*derived)["series_first_bytes"] = SizeValue(static_cast<double>(first));
  (*derived)["series_last_bytes"] = SizeValue(static_cast<double>(last));
  (*derived)["series_peak_bytes"] = SizeValue(static_cast<double>(peak));
  (*derived)["series_growth_bytes"] = SizeValue(Gap(last, first));
  if (first > 0) (*derived)["series_growth_ratio"] = RatioValue(static_cast<double>(last) / first);
  double slope = Slope(s, stride);
  (*derived)["series_slope_bytes"] = SizeValue(slope);
  if (s.points.size() >= 2) {
    (*derived)["series_rising_share"] =
        RatioValue(static_cast<double>(rising) / static_cast<double>(s.points.size() - 1));
    int64_t middle = s.points[s.points.size() / 2].bytes;
    if (last != first) {
      (*derived)["series_late_growth_share"] = RatioValue(Gap(last, middle) / Gap(last, first));
    }
  }
  double minutes = (s.last_seconds - s.first_seconds) / 60;
  if (s.first_seconds >= 0 && minutes > 0 && s.figures >= 2) {
    double per_minute = Gap(last, first) / minutes;
    (*derived)["series_minutes"] = RatioValue(minutes);
    (*derived)["series_slope_per_minute_bytes"] = SizeValue(per_minute);
    if (per_minute > 0 && s.limit_bytes > last) {
      (*derived)["series_minutes_to_limit"] = RatioValue(Gap(s.limit_bytes, last) / per_minute);
    }
  }
  if (s.limit_bytes > 0) {
    (*derived)["series_limit_bytes"] = SizeValue(static_cast<double>(s.limit_bytes));
    if (slope > 0 && last < s.limit_bytes) {
      (*derived)["series_samples_to_limit"] =
          CountValue(SaturatedCount(std::ceil(Gap(s.limit_bytes, last) / slope)));
    }
  }
}

}  // namespace oomlens
