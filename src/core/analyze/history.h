// Program history: lines that show a program was compiled and that the job made
// progress (completed steps) before an incident. A program that compiled and ran
// and later fails to load was evicted by buffers.
#ifndef OOMLENS_CORE_ANALYZE_HISTORY_H_
#define OOMLENS_CORE_ANALYZE_HISTORY_H_

#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/model/event.h"
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
  /// Notes in event the work lines its input and its host had shown before it, and
  /// its phase from the signs before it; one with none waits for the signs after it.
  void Mark(Event* event);
  /// Fills incident->after for each incident from the work lines after its last
  /// occurrence: in its host's stream when that stream printed any, else in its input.
  void AttachAftermath(std::vector<Incident>* incidents) const;
  /// Decides incident->phase where neither its family nor a sign of phase before
  /// it did (Mark): from the signs its own traceback printed after the message
  /// (TensorFlow's "defined at" frames, a traceback after a log line), else from
  /// the steps and compiles counted before and after it. Call after Attach and
  /// AttachAftermath.
  void AttachPhase(std::vector<Incident>* incidents) const;

 private:
  // The work lines (completed steps, compiles) of one stream: counts exact,
  // the last few kept to place an event that was sent after lines below it.
  struct Work {
    uint64_t work = 0, steps = 0, last_line = 0;
    double last_seconds = -1;
    std::deque<std::pair<uint64_t, bool>> recent;  // (line, a step)
    // Lines that show a phase (activity "phase" or "frame") and step lines (phase ""), the last few.
    struct Sign {
      uint64_t line = 0;
      std::string phase, text;
      bool frame = false;  // a traceback's frame: it may be printed below its message
    };
    std::deque<Sign> signs;
    void Add(const Figure& figure);
    void AddSign(const Figure& figure);
    Aftermath::Mark Before(uint64_t line) const;
    bool PhaseBefore(const Location& where, Phase* phase) const;
    const Sign* SignAfter(const Location& where, uint64_t window) const;
  };

  Work* HostWork(const Figure& figure);

  // An event that no sign before it placed waits, open, in its stream: the signs
  // right after it (its own traceback, printed below the message) place it, until a
  // step line, the stream's next event or kLateWindow lines close it.
  void SignAfter(const Figure& figure);
  void Place(int input, const Location& where, const std::string& phase, std::string_view text,
             uint64_t line);
  std::map<std::pair<int, std::string>, Location> open_;  // (input, host) -> the waiting event
  std::map<std::pair<int, uint64_t>, Phase> placed_;      // (input, line) -> its phase, kMaxLater

  struct Lines {
    uint64_t count = 0, first = 0;  // kept per line, bounded: see Add
    std::vector<uint64_t> lines;
  };
  std::map<std::pair<int, std::string>, Lines> compiles_;  // (input, normalized program)
  std::map<int, Lines> steps_;                             // by input
  std::map<int, Work> work_;                               // by input
  std::map<std::pair<int, std::string>, Work> host_work_;  // by input and host, the first kMaxHostStreams
};

/// Derived facts of incident.history (program_compiles_before, steps_before).
void DeriveHistoryFacts(const ProgramHistory& history, Facts* derived);

}  // namespace oomlens

#endif  // OOMLENS_CORE_ANALYZE_HISTORY_H_
