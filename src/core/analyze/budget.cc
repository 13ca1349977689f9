#include "core/analyze/budget.h"

#include <algorithm>

namespace oomlens {
namespace {

constexpr size_t kMaxEntries = 1024;  // per input: a start-up prints a dozen, a program's stats five

}  // namespace

void BudgetCollector::Add(const Figure& figure) {
  if (!figure.facts) return;
  if (figure.input && !inputs_.count(figure.input_index)) inputs_[figure.input_index] = *figure.input;
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
      if (entry.line < incident.first.line) Keep(entry, incident.first.input, &budget);  // not read ahead
    }
  }
}

// A figure printed again stands at its later line. A figure that opens a ledger
// (the device's total of a start-up, the code size first in a program's stats)
// printed again is a new start-up or another program: the budget starts over, so
// two runs' figures never mix.
void BudgetCollector::Keep(const Entry& entry, const std::string& input, std::vector<BudgetEntry>* budget) {
  auto same = std::find_if(budget->begin(), budget->end(),
                           [&entry](const BudgetEntry& b) { return b.name == entry.name; });
  bool opens = entry.name == "capacity_bytes" || entry.name == "generated_code_bytes";
  if (opens && same != budget->end()) {
    budget->clear();
    same = budget->end();
  }
  BudgetEntry now{entry.name, entry.value, Location{input, entry.line}};
  if (same == budget->end()) budget->push_back(std::move(now));
  else *same = std::move(now);
}

std::vector<InputBudget> BudgetCollector::PerInput() const {
  std::vector<InputBudget> out;
  for (const auto& [index, entries] : entries_) {
    auto name = inputs_.find(index);
    InputBudget budget{name != inputs_.end() ? name->second : "", {}};
    for (const Entry& entry : entries) Keep(entry, budget.input, &budget.entries);
    out.push_back(std::move(budget));
  }
  return out;
}

}  // namespace oomlens
