#include "core/analyze/history.h"

#include <algorithm>

#include "core/model/fact_values.h"

namespace oomlens {
namespace {

constexpr size_t kMaxLinesKept = 4096;  // per program or input; counts stay exact

void Record(uint64_t line, std::vector<uint64_t>* lines, uint64_t* count, uint64_t* first) {
  if (*count == 0) *first = line;
  ++*count;
  if (lines->size() < kMaxLinesKept) lines->push_back(line);
}

// How many of the (sorted) lines come before line; with more lines than kept,
// those beyond the kept ones are assumed later (an undercount, never invented).
uint64_t Before(const std::vector<uint64_t>& lines, uint64_t line) {
  return static_cast<uint64_t>(std::lower_bound(lines.begin(), lines.end(), line) - lines.begin());
}

}  // namespace

std::string NormalizeProgram(const std::string& program) {
  std::string p = program;
  for (const char* wrapper : {"pjit(", "jit("}) {
    std::string w = wrapper;
    if (p.size() > w.size() + 1 && p.compare(0, w.size(), w) == 0 && p.back() == ')') {
      p = p.substr(w.size(), p.size() - w.size() - 1);
      break;
    }
  }
  for (const char* prefix : {"pjit_", "jit_"}) {
    std::string x = prefix;
    if (p.size() > x.size() && p.compare(0, x.size(), x) == 0) {
      p = p.substr(x.size());
      break;
    }
  }
  return p;
}

void HistoryCollector::Add(const Figure& figure) {
  if (figure.activity == "step") {
    Lines& l = steps_[figure.input_index];
    Record(figure.line, &l.lines, &l.count, &l.first);
    return;
  }
  if (figure.activity != "compile" || !figure.program) return;
  Lines& l = compiles_[{figure.input_index, NormalizeProgram(figure.program->text)}];
  Record(figure.line, &l.lines, &l.count, &l.first);
}

void HistoryCollector::Attach(std::vector<Incident>* incidents) const {
  for (auto& incident : *incidents) {
    ProgramHistory& h = incident.history;
    uint64_t at = incident.first.line;
    auto program = incident.facts.find("program");
    if (program != incident.facts.end()) {
      auto it = compiles_.find({incident.first_input_index, NormalizeProgram(program->second.text)});
      if (it != compiles_.end() && it->second.first < at) {
        h.compiles = Before(it->second.lines, at);
        h.first_compile_line = it->second.first;
      }
    }
    auto steps = steps_.find(incident.first_input_index);
    if (steps != steps_.end()) {
      h.steps = Before(steps->second.lines, at);
      if (h.steps > 0) h.last_step_line = steps->second.lines[h.steps - 1];
    }
  }
}

void DeriveHistoryFacts(const ProgramHistory& history, Facts* derived) {
  if (history.compiles > 0) {
    (*derived)["program_compiles_before"] = CountValue(static_cast<int64_t>(history.compiles));
    (*derived)["program_first_compile_line"] = CountValue(static_cast<int64_t>(history.first_compile_line));
  }
  if (history.steps > 0) (*derived)["steps_before"] = CountValue(static_cast<int64_t>(history.steps));
}

}  // namespace oomlens
