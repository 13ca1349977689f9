// A figure: what a series or activity signature reads from one line (a memory
// figure, a compile, a completed step). Figures can be a large share of a log's
// lines (one per step and device), so the scanner takes them from the
// recogniser as this view, without building an Event.
#ifndef OOMLENS_CORE_MODEL_FIGURE_H_
#define OOMLENS_CORE_MODEL_FIGURE_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/model/event.h"
#include "oomlens/report.h"

namespace oomlens {

struct Figure {
  std::string_view signature;          ///< id of the signature that read it
  std::string_view message;            ///< the line's message it was read from ("" when read ahead)
  bool series = false;                 ///< a memory figure (else a sign of activity)
  std::string_view title;              ///< the signature's title: names the series
  std::string_view activity;           ///< "compile", "step", "phase", "frame", "budget" or empty
  std::string_view phase;              ///< "phase", "frame": the phase the line shows (eval, checkpoint, ...)
  const std::string* input = nullptr;  ///< the input's name
  int input_index = 0;
  uint64_t line = 0;
  std::string_view host;
  double time_seconds = -1;            ///< the line's timestamp, seconds into the year; -1: none
  const FactValue* used = nullptr;     ///< sample_used_bytes
  const FactValue* limit = nullptr;    ///< sample_limit_bytes
  const FactValue* key = nullptr;      ///< sample_key
  const FactValue* program = nullptr;  ///< program (compile lines)
  /// Every fact the line held (activity "budget": the figures of a memory budget).
  const std::vector<std::pair<const FactInfo*, FactValue>>* facts = nullptr;
};

/// An OOM event as a figure (its time and place; no figure facts): the memory it
/// printed in use is one point of the series of OOMs (views into the event).
Figure FigureOf(const Event& event);

}  // namespace oomlens

#endif  // OOMLENS_CORE_MODEL_FIGURE_H_
