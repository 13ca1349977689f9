#include "core/model/figure.h"

#include "core/model/fact_values.h"

namespace oomlens {

Figure FigureOf(const Event& event) {
  Figure figure;
  figure.title = event.title;
  figure.input = &event.where.input;
  figure.input_index = event.input_index;
  figure.line = event.where.line;
  figure.host = event.host;
  figure.time_seconds = event.time_seconds;
  figure.used = FactIn(event.facts, "sample_used_bytes");
  figure.limit = FactIn(event.facts, "sample_limit_bytes");
  figure.key = FactIn(event.facts, "sample_key");
  figure.program = FactIn(event.facts, "program");
  return figure;
}

}  // namespace oomlens
