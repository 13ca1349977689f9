#include "core/analyze/history.h"

#include <algorithm>

#include "core/model/fact_values.h"

namespace oomlens {
namespace {

constexpr size_t kMaxLinesKept = 4096;    // per program or input; counts stay exact
constexpr size_t kRecentWorkKept = 64;    // per stream: an event is sent at most this far behind
constexpr size_t kMaxHostStreams = 4096;  // counted apart; the others count in their input only
constexpr uint64_t kMinWorkToGoOn = 2;    // work lines after an OOM that show the job went on
constexpr size_t kRecentSignsKept = 64;   // per stream: signs of phase (a traceback's frames, a step line)
constexpr uint64_t kPhaseWindow = 500;    // lines: a sign of phase further before an OOM does not decide it
constexpr size_t kMaxSignText = 160;      // bytes of the line kept as the phase's evidence
constexpr uint64_t kLateWindow = 200;     // lines: a traceback printed after its message ends within them
constexpr size_t kMaxLater = 10000;       // events waiting for a sign after them

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

void HistoryCollector::Work::Add(const Figure& figure) {
  bool step = figure.activity == "step";
  ++work;
  if (step) ++steps;
  last_line = std::max(last_line, figure.line);
  if (figure.time_seconds >= 0) last_seconds = figure.time_seconds;
  recent.emplace_back(figure.line, step);
  if (recent.size() > kRecentWorkKept) recent.pop_front();
  if (step) AddSign(figure);
}

// A step line ends any phase a line before it showed (training went on), and so does
// a phase line of phase "unknown" (capture finished, the server is up); a phase line starts one.
void HistoryCollector::Work::AddSign(const Figure& figure) {
  Sign sign{figure.line, std::string(figure.phase), "", figure.activity == "frame"};
  if (sign.phase == "unknown") sign.phase.clear();  // the phase before it is over: as after a step
  if (!sign.phase.empty()) {
    std::string_view text = figure.message.empty() ? figure.title : figure.message;
    sign.text = std::string(text.substr(0, kMaxSignText));
    if (text.size() > kMaxSignText) sign.text += "...";
  }
  signs.push_back(std::move(sign));
  if (signs.size() > kRecentSignsKept) signs.pop_front();
}

// The phase shown by the last sign before where (within kPhaseWindow lines): the
// innermost matching frame of a traceback, or a line such as "Running Evaluation"
// that no step line followed. False when no sign comes before it.
bool HistoryCollector::Work::PhaseBefore(const Location& where, Phase* phase) const {
  for (auto it = signs.rbegin(); it != signs.rend(); ++it) {
    if (it->line >= where.line) continue;
    if (where.line - it->line > kPhaseWindow) return false;
    if (it->phase.empty()) return true;  // a step line: the counters decide (AttachPhase)
    *phase = Phase{it->phase, it->text, Location{where.input, it->line}};
    return true;
  }
  return false;
}

// The work lines counted before line: all of them less the recent ones at or after it.
Aftermath::Mark HistoryCollector::Work::Before(uint64_t line) const {
  Aftermath::Mark mark{work, steps};
  for (const auto& [at, step] : recent) {
    if (at < line) continue;
    --mark.work;
    if (step) --mark.steps;
  }
  return mark;
}

// The stream of a host's work and signs (a line per step, compile or sign: the
// key's copy is cheap); null for a host beyond the first kMaxHostStreams.
HistoryCollector::Work* HistoryCollector::HostWork(const Figure& figure) {
  std::pair<int, std::string> stream{figure.input_index, std::string(figure.host)};
  auto it = host_work_.find(stream);
  if (it == host_work_.end() && host_work_.size() < kMaxHostStreams)
    it = host_work_.emplace(std::move(stream), Work{}).first;
  return it != host_work_.end() ? &it->second : nullptr;
}

// The innermost frame printed after where (the last) before any other sign, within window.
const HistoryCollector::Work::Sign* HistoryCollector::Work::SignAfter(const Location& where,
                                                                      uint64_t window) const {
  const Sign* last = nullptr;
  for (const auto& sign : signs) {
    if (sign.line <= where.line) continue;
    if (!sign.frame || sign.line - where.line > window) break;
    last = &sign;
  }
  return last;
}

void HistoryCollector::Place(int input, const Location& where, const std::string& phase,
                             std::string_view text, uint64_t line) {
  auto key = std::make_pair(input, where.line);
  if (placed_.size() >= kMaxLater && placed_.find(key) == placed_.end()) return;
  placed_[key] = Phase{phase, "after it: " + std::string(text), Location{where.input, line}};
}

// A traceback frame after the open event of its stream places it (the innermost,
// the last, wins). A step line, a line showing a phase (the job went on to it) or a
// frame too far below closes it.
void HistoryCollector::SignAfter(const Figure& figure) {
  auto open = open_.find({figure.input_index, std::string(figure.host)});
  if (open == open_.end() || figure.line <= open->second.line) return;
  if (figure.activity != "frame" || figure.line - open->second.line > kLateWindow) {
    open_.erase(open);
    return;
  }
  std::string_view text = figure.message.empty() ? figure.title : figure.message;
  std::string kept = std::string(text.substr(0, kMaxSignText)) + (text.size() > kMaxSignText ? "..." : "");
  Place(figure.input_index, open->second, std::string(figure.phase), kept, figure.line);
}

void HistoryCollector::Add(const Figure& figure) {
  if (!open_.empty() && (!figure.phase.empty() || figure.activity == "step")) SignAfter(figure);
  if (!figure.phase.empty()) {  // a sign of phase (a budget line may be one too)
    work_[figure.input_index].AddSign(figure);
    if (Work* host = figure.host.empty() ? nullptr : HostWork(figure)) host->AddSign(figure);
    return;
  }
  if (figure.activity == "step" || figure.activity == "compile") {
    work_[figure.input_index].Add(figure);
    if (Work* host = figure.host.empty() ? nullptr : HostWork(figure)) host->Add(figure);
  }
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

void HistoryCollector::Mark(Event* event) {
  auto all = work_.find(event->input_index);
  if (all != work_.end()) event->seen_in_input = all->second.Before(event->where.line);
  auto stream = host_work_.find({event->input_index, event->host});
  if (stream != host_work_.end()) event->seen_in_host = stream->second.Before(event->where.line);
  event->marked = true;
  if (!event->phase.name.empty()) return;  // its family's phase
  bool by_host = stream != host_work_.end() && stream->second.PhaseBefore(event->where, &event->phase);
  if (!by_host && all != work_.end()) all->second.PhaseBefore(event->where, &event->phase);
  std::pair<int, std::string> key{event->input_index, event->host};
  open_.erase(key);  // the stream's next event closes the one before
  if (!event->phase.name.empty()) return;
  // the message's own lines below it were read before it was sent: their signs first
  const Work* own = stream != host_work_.end() ? &stream->second
                    : all != work_.end()       ? &all->second
                                               : nullptr;
  if (const Work::Sign* sign = own ? own->SignAfter(event->where, kLateWindow) : nullptr)
    Place(event->input_index, event->where, sign->phase, sign->text, sign->line);
  if (open_.size() < kMaxHostStreams) open_.emplace(std::move(key), event->where);
}

namespace {

// What work follows the last occurrence in the stream, given what was counted
// before it. One work line is not enough to say the job went on: it can be another
// process's last line in a log without host tags, and a job that died must fail
// --fail-on ended.
void Measure(uint64_t work, uint64_t steps, uint64_t last_line, double last_seconds, Aftermath::Mark before,
             Aftermath* after) {
  if (last_line <= after->last.line) return;
  after->work = work > before.work ? work - before.work : 0;
  after->steps = steps > before.steps ? steps - before.steps : 0;
  after->went_on = after->work >= kMinWorkToGoOn;
  if (!after->went_on) return;
  after->lines = last_line - after->last.line;
  if (after->last_seconds >= 0 && last_seconds >= after->last_seconds)
    after->seconds = last_seconds - after->last_seconds;
}

}  // namespace

void HistoryCollector::AttachAftermath(std::vector<Incident>* incidents) const {
  for (auto& incident : *incidents) {
    Aftermath& after = incident.after;
    if (after.last_input_index < 0) {  // not seen as an event: its first place stands for its last
      after.last = incident.first;
      after.last_input_index = incident.first_input_index;
    }
    auto stream = host_work_.find({after.last_input_index, after.last_host});
    auto all = work_.find(after.last_input_index);
    bool by_host = stream != host_work_.end() && stream->second.work > 0;  // not signs of phase alone
    const Work* work = by_host ? &stream->second : all != work_.end() ? &all->second : nullptr;
    if (!work || after.last.line == 0) continue;  // no work in its input, or a record of no lines
    Aftermath::Mark before = after.marked ? (by_host ? after.seen_in_host : after.seen_in_input)
                                          : work->Before(after.last.line + 1);
    Measure(work->work, work->steps, work->last_line, work->last_seconds, before, &after);
  }
}

namespace {

// The phase the counters show: steps completed before it (step), or none before it
// while its program had compiled or steps followed it (warmup: its first steps).
Phase CountedPhase(const Incident& incident) {
  const ProgramHistory& h = incident.history;
  if (h.steps > 0) {
    return Phase{"step", "the last of " + std::to_string(h.steps) + " completed steps before it",
                 Location{incident.first.input, h.last_step_line}};
  }
  auto program = incident.facts.find("program");
  if (h.compiles > 0 && program != incident.facts.end()) {
    return Phase{"warmup", "'" + program->second.text + "' compiled here, and no step completed before it",
                 Location{incident.first.input, h.first_compile_line}};
  }
  if (incident.after.steps > 0) {
    return Phase{
        "warmup", "no step completed before it, " + std::to_string(incident.after.steps) + " after it", {}};
  }
  return Phase{};
}

}  // namespace

void HistoryCollector::AttachPhase(std::vector<Incident>* incidents) const {
  for (auto& incident : *incidents) {
    Phase& phase = incident.phase;
    auto placed = placed_.find({incident.first_input_index, incident.first.line});
    if (phase.name.empty() && placed != placed_.end()) phase = placed->second;
    if (phase.name.empty()) {
      phase = CountedPhase(incident);
    } else if (phase.name == "step" && incident.history.steps == 0 &&
               CountedPhase(incident).name == "warmup") {
      phase.name = "warmup";  // a step's frame, and no step had completed: its first steps
      phase.evidence += ", and no step completed before it";
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
