#include "oomlens/report.h"

namespace oomlens {

std::string FormatProblem(const Problem& p) {
  std::string out = p.where.empty() ? p.message : p.where + ": " + p.message;
  if (!p.help.empty()) out += " (help: " + p.help + ")";
  return out;
}

void EventsNotKept::Add(const EventsNotKept& other, int input_offset) {
  events += other.events;
  for (const auto& [kind, count] : other.kinds) kinds[kind] += count;
  for (int input : other.inputs) inputs.insert(input + input_offset);
}

const std::string& Phase::Name() const {
  static const std::string unknown = "unknown";
  return name.empty() ? unknown : name;
}

const char* GroupByName(AllocationGroup::By by) {
  switch (by) {
    case AllocationGroup::By::kOwner: return "owner";
    case AllocationGroup::By::kLabel: return "label";
    case AllocationGroup::By::kIdentical: return "identical";
  }
  return "owner";
}

}  // namespace oomlens
