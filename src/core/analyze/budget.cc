#include "core/analyze/budget.h"

#include <algorithm>

namespace oomlens {
namespace {

constexpr size_t kMaxEntries = 1024;  // per input: a start-up prints a dozen, a program's stats five

}  // namespace

void BudgetCollector::Add(const Figure& figure) {
  if (!figure.facts) return;
  std::deque<Entry>& entries = entries_[figure.input_index];
  for (const auto& [info, value] : *figure.facts) {
    entries.push_back(Entry{figure.line, info->name, value});
    if (entries.size() > kMaxEntries) entries.pop_front();
  }
}

void BudgetCollector::Attach(std::vector<Incident>* incidents) const {
  for (auto& incident : *incidents) {
    auto it = entries_.find(incident.first_input_index);
    if (it == entries_.end()) continue;
    std::vector<BudgetEntry>& budget = incident.budget;
    budget.clear();
    for (const Entry& entry : it->second) {
      if (entry.line >= incident.first.line) continue;  // read ahead of an event sent late
      auto same = std::find_if(budget.begin(), budget.end(),
                               [&entry](const BudgetEntry& b) { return b.name == entry.name; });
      BudgetEntry now{entry.name, entry.value, Location{incident.first.input, entry.line}};
      if (same == budget.end()) budget.push_back(std::move(now));
      else *same = std::move(now);  // printed again (a restart): the later figure stands
    }
  }
}

}  // namespace oomlens
