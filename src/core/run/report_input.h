// An input that may be a report written with --format json rather than a log
// (`oomlens diff` takes either, `merge` only reports): told by parsing it as one
// JSON document, read at most kMaxReportBytes, never as a whole DOM.
#ifndef OOMLENS_CORE_RUN_REPORT_INPUT_H_
#define OOMLENS_CORE_RUN_REPORT_INPUT_H_

#include <string>

#include "core/input/line_reader.h"
#include "oomlens/report.h"

namespace oomlens {

/// True when source holds one JSON object that is a report, or claims to be one
/// (names a schema version): *ok says whether it was read into *report, *error why
/// not. False when it is a log (a JSON-lines log included): *text holds what was
/// read to look, to be scanned before the rest of source.
bool ReadReportOrLook(ByteSource* source, std::string* text, Report* report, bool* ok, std::string* error);

}  // namespace oomlens

#endif  // OOMLENS_CORE_RUN_REPORT_INPUT_H_
