#include "core/render/segment_map.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>
#include <tuple>
#include <vector>

#include "core/analyze/allocation_summary.h"
#include "core/model/fact_values.h"
#include "oomlens/render.h"
#include "oomlens/size.h"

namespace oomlens {
namespace {

constexpr size_t kSegmentsDrawn = 12;
constexpr double kWidth = 560;  // the largest segment's bar; the others to scale
constexpr int kRow = 22;

struct Segment {
  std::string id;
  int64_t bytes = 0, start = -1;  // start: the address of its first block, when known
  std::vector<const Allocation*> blocks;
};

const FactValue* FieldOf(const Allocation& a, const char* name) {
  auto it = a.fields.find(name);
  return it == a.fields.end() ? nullptr : &it->second;
}

int64_t Address(const Allocation& a) {
  const FactValue* offset = FieldOf(a, "offset");
  return offset ? static_cast<int64_t>(std::strtoull(offset->text.c_str(), nullptr, 16)) : -1;
}

std::vector<Segment> SegmentsOf(const Incident& incident) {
  std::map<std::string, Segment> by_id;
  for (const auto& a : incident.allocations) {
    const FactValue* id = FieldOf(a, "segment");
    const FactValue* bytes = FieldOf(a, "segment_bytes");
    if (!id || !bytes || !FieldOf(a, "size_bytes")) continue;
    Segment& s = by_id[id->text];
    s.id = id->text;
    s.bytes = bytes->integer;
    s.blocks.push_back(&a);
    if (id->text.rfind("0x", 0) == 0)
      s.start = static_cast<int64_t>(std::strtoull(id->text.c_str(), nullptr, 16));
  }
  std::vector<Segment> out;
  for (auto& [id, s] : by_id) out.push_back(std::move(s));
  std::stable_sort(out.begin(), out.end(),
                   [](const Segment& a, const Segment& b) { return a.bytes > b.bytes; });
  if (out.size() > kSegmentsDrawn) out.resize(kSegmentsDrawn);
  return out;
}

const char* StateColor(const Allocation& a) {
  std::string state = AllocationState(a);
  if (state == "free") return "#7b7";
  if (state == "reserved") return "#cc7";
  return "#58a";
}

std::string Tooltip(const Allocation& a) {
  std::string text = FormatSize(FieldOf(a, "size_bytes")->integer) + " " + AllocationState(a);
  if (const FactValue* owner = FieldOf(a, "owner")) text += " by " + owner->text;
  return HtmlEscape(text);
}

// One segment: grey for its whole size (blocks not kept stay grey), then each block
// at its place, by address when known, else in listing order.
void DrawSegment(const Segment& s, double scale, int y, std::ostream& svg) {
  svg << "<rect x='0' y='" << y << "' width='" << std::max(1.0, scale * s.bytes)
      << "' height='16' fill='#ddd'><title>" << HtmlEscape(s.id + ": " + FormatSize(s.bytes))
      << "</title></rect>";
  int64_t next = 0;
  for (const Allocation* a : s.blocks) {
    int64_t size = FieldOf(*a, "size_bytes")->integer, address = Address(*a);
    int64_t at = s.start >= 0 && address >= s.start ? address - s.start : next;
    next = at;
    AddSaturating(std::max<int64_t>(size, 0), &next);  // sizes from a crafted report never wrap
    if (at >= s.bytes) continue;  // a block past its segment's end is not drawn outside it
    double x = scale * at, width = std::max(0.5, scale * std::min(size, s.bytes - at));
    svg << "<rect x='" << x << "' y='" << y << "' width='" << width << "' height='16' fill='"
        << StateColor(*a) << "' stroke='#fff' stroke-width='0.5'><title>" << Tooltip(*a) << "</title></rect>";
  }
  svg << "<text x='" << scale * s.bytes + 6 << "' y='" << y + 13 << "' font-size='12'>" << FormatSize(s.bytes)
      << "</text>";
}

const FactValue* FactOrDerived(const Incident& i, const char* name) {
  auto it = i.facts.find(name);
  if (it != i.facts.end()) return &it->second;
  it = i.derived.find(name);
  return it == i.derived.end() ? nullptr : &it->second;
}

// The request and the largest free block, to the same scale as the segments (a
// request larger than any segment runs to the edge).
void DrawRequest(const Incident& incident, double scale, int y, std::ostream& svg) {
  int row = 0;
  for (auto [label, fact, color] : {std::tuple{"requested", "requested_bytes", "#d55"},
                                    std::tuple{"largest free block", "largest_free_block_bytes", "#7b7"}}) {
    const FactValue* bytes = FactOrDerived(incident, fact);
    if (!bytes) continue;
    double width = std::min(kWidth * 1.15, scale * static_cast<double>(bytes->integer));
    int at = y + row++ * kRow;
    svg << "<rect x='0' y='" << at << "' width='" << std::max(1.0, width) << "' height='16' fill='" << color
        << "'/><text x='" << width + 6 << "' y='" << at + 13 << "' font-size='12'>" << label << " "
        << FormatSize(bytes->integer) << "</text>";
  }
}

}  // namespace

std::string SegmentMap(const Incident& incident) {
  std::vector<Segment> segments = SegmentsOf(incident);
  if (segments.empty()) return "";
  double scale = segments.front().bytes > 0 ? kWidth / static_cast<double>(segments.front().bytes) : 0;
  int height = static_cast<int>(segments.size() + 2) * kRow + 8;
  std::ostringstream svg;
  svg << "<svg xmlns='http://www.w3.org/2000/svg' width='760' height='" << height
      << "' role='img' aria-label='segments by block state'>";
  for (size_t k = 0; k < segments.size(); ++k)
    DrawSegment(segments[k], scale, 4 + static_cast<int>(k) * kRow, svg);
  DrawRequest(incident, scale, 4 + static_cast<int>(segments.size()) * kRow + 6, svg);
  svg << "</svg>";
  return svg.str();
}

}  // namespace oomlens
