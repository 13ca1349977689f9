#include "core/input/logical_lines.h"

#include <algorithm>

#include "core/input/unwrap.h"

namespace oomlens {
namespace {

bool MayBeJson(std::string_view text) {
  return !text.empty() && (text.front() == '{' || text.front() == ' ');
}

}  // namespace

LogicalLines::LogicalLines(Sink sink, HoldsStart holds_start, MayMatter may_matter)
    : sink_(std::move(sink)),
      may_matter_(std::move(may_matter)),
      paste_(
          [this](std::string_view text, uint64_t number, const std::string& host,
                 const std::vector<std::string_view>& physical, int known_start) {
            bool reshaped = physical.size() > 1 || (physical.size() == 1 && physical[0] != text);
            sink_(LogicalLine{text, number, host, false, reshaped ? &physical : nullptr, known_start});
          },
          std::move(holds_start)) {}

void LogicalLines::Begin() { paste_.Begin(); }

void LogicalLines::Flush() {
  EmitPartial();
  paste_.Flush();
}

// What CRI partials held, as one line: its rest never came, or it grew past the cap.
void LogicalLines::EmitPartial() {
  if (cri_partial_.empty()) return;
  std::string text = std::move(cri_partial_);
  cri_partial_.clear();
  Physical(text, partial_number_, false, false);
}

void LogicalLines::Push(const Line& line) {
  std::string_view text = line.text;
  bool complete = true;
  bool held = !cri_partial_.empty();
  if (UnwrapCri(text, &cri_partial_, &unwrapped_, &complete)) {
    if (!held) partial_number_ = line.number;
    if (!complete && cri_partial_.size() > kMaxPartialBytes) EmitPartial();
    if (!complete) return;  // wait for the rest of the line
    text = unwrapped_;
  }
  bool as_read = text.data() == line.text.data();    // not a CRI record's unwrapped text
  bool known_candidate = line.holds_hit && as_read;  // the fast path found a literal in it
  bool known_clear = line.clear && as_read;          // and in its parts, no literal either
  std::string_view content = text;
  while (!content.empty() && content.back() == '\r') content.remove_suffix(1);
  if (content.find('\r') == std::string_view::npos)
    return Physical(text, line.number, known_candidate, known_clear);
  for (size_t start = 0; start <= content.size();) {
    size_t end = std::min(content.find('\r', start), content.size());
    if (end > start) Physical(content.substr(start, end - start), line.number, false, known_clear);
    start = end + 1;
  }
}

// One line, or one part of a line cut by carriage returns: to the paste restorer
// (JSON payloads unwrapped first), or on.
void LogicalLines::Physical(std::string_view text, uint64_t number, bool known_candidate, bool known_clear) {
  if (!paste_.active()) return Emit(text, number, known_candidate);
  std::string host;
  if (MayBeJson(text) && UnwrapJson(text, &payload_lines_, &host)) {  // decoded: no part of text
    for (const auto& payload : payload_lines_) paste_.Push(payload, number, host, /*record=*/true);
    return;
  }
  paste_.Push(text, number, "", /*record=*/false, known_clear);
}

// A line past the paste restorer: a JSON envelope that may matter gives its payload lines.
void LogicalLines::Emit(std::string_view text, uint64_t number, bool known_candidate) {
  std::string host;
  if (MayBeJson(text) && may_matter_(text, known_candidate) && UnwrapJson(text, &payload_lines_, &host)) {
    for (const auto& payload : payload_lines_) sink_(LogicalLine{payload, number, host, true, nullptr});
    return;
  }
  sink_(LogicalLine{text, number, "", known_candidate, nullptr});
}

}  // namespace oomlens
