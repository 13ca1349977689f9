// Program history: lines that show a program was compiled and that the job made
// progress (completed steps) before an incident. A program that compiled and ran
// and later fails to load was evicted by buffers.
#ifndef OOMLENS_CORE_ANALYZE_HISTORY_H_
#define OOMLENS_CORE_ANALYZE_HISTORY_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/model/figure.h"
#include "oomlens/report.h"

namespace oomlens {

/// "jit(train_step)", "jit_train_step", "pjit_train_step" -> "train_step".
std::string NormalizeProgram(const std::string& program);

class HistoryCollector {
 public:
  /// Records a sign of activity ("compile" with fact program, or "step").
  void Add(const Figure& figure);
  /// Fills incident->history for each incident from what came before it in its input.
  void Attach(std::vector<Incident>* incidents) const;

 private:
  struct Lines {
    uint64_t count = 0, first = 0;  // kept per line, bounded: see Add
    std::vector<uint64_t> lines;
  };
  std::map<std::pair<int, std::string>, Lines> compiles_;  // (input, normalized program)
  std::map<int, Lines> steps_;                             // by input
};

/// Derived facts of incident.history (program_compiles_before, steps_before).
void DeriveHistoryFacts(const ProgramHistory& history, Facts* derived);

}  // namespace oomlens

#endif  // OOMLENS_CORE_ANALYZE_HISTORY_H_
