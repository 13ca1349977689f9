// Renderers: a Report in, text or JSON out. Deterministic: the same report
// always gives the same bytes (no timestamps, no absolute paths added).
#ifndef OOMLENS_RENDER_H_
#define OOMLENS_RENDER_H_

#include <cstdint>
#include <ostream>
#include <set>
#include <string>

#include "oomlens/report.h"

namespace oomlens {

struct TextOptions {
  bool color = false;
  size_t max_excerpt_lines = 8;
};

/// Human-readable report: a one-line verdict, then one block per incident.
void RenderText(const Report& report, const TextOptions& options, std::ostream& out);

/// JSON document, schema version 1 (docs/json-output.md). Always valid UTF-8.
void RenderJson(const Report& report, std::ostream& out);

/// "0-255 (256)", "0,2,4-6 (5)", "34".
std::string FormatIdSet(const std::set<int64_t>& ids);

/// "worker-0..31 (32)", "a, b, c", "h1, h2, h3, h4 +6 more (10)".
std::string FormatNameSet(const std::set<std::string>& names);

/// The version of oomlens.
const char* Version();

}  // namespace oomlens

#endif  // OOMLENS_RENDER_H_
