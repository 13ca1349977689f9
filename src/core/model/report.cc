#include "oomlens/report.h"

namespace oomlens {

std::string FormatProblem(const Problem& p) {
  std::string out = p.where.empty() ? p.message : p.where + ": " + p.message;
  if (!p.help.empty()) out += " (help: " + p.help + ")";
  return out;
}

}  // namespace oomlens
