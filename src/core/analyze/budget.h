// Memory budgets: the figures a log prints of what the memory is planned for (a
// serving engine's start-up ledger, a compiled program's memory stats), attached
// to the incident that follows them. Each figure is the log's own; none is computed.
#ifndef OOMLENS_CORE_ANALYZE_BUDGET_H_
#define OOMLENS_CORE_ANALYZE_BUDGET_H_

#include <deque>
#include <map>
#include <string>
#include <vector>

#include "core/model/figure.h"
#include "oomlens/report.h"

namespace oomlens {

class BudgetCollector {
 public:
  /// Records the figures of a budget line (activity "budget").
  void Add(const Figure& figure);
  /// Fills incident->budget with the last value of each figure its input printed
  /// before its first occurrence, in the order first printed.
  void Attach(std::vector<Incident>* incidents) const;
  /// The budget of each input that printed one: the last value of each figure.
  std::vector<InputBudget> PerInput() const;

 private:
  struct Entry {
    uint64_t line = 0;
    std::string name;
    FactValue value;
  };
  static void Keep(const Entry& entry, const std::string& input, std::vector<BudgetEntry>* budget);
  std::map<int, std::deque<Entry>> entries_;  // by input, the last kMaxEntries
  std::map<int, std::string> inputs_;         // their names
};

}  // namespace oomlens

#endif  // OOMLENS_CORE_ANALYZE_BUDGET_H_
