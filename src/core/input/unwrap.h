// Unwrapping: the envelopes log stores put around each line, removed before
// cleaning. Docker json-file ({"log": ...}), Google Cloud Logging exports
// ({"textPayload": ...} / {"jsonPayload": {"message": ...}}, host from the
// resource labels), generic {"message": ...} lines, and CRI/Kubernetes lines
// ("<time> stderr F <text>", partial "P" lines joined with what follows).
#ifndef OOMLENS_CORE_INPUT_UNWRAP_H_
#define OOMLENS_CORE_INPUT_UNWRAP_H_

#include <string>
#include <string_view>
#include <vector>

namespace oomlens {

/// CRI: when line is "<RFC3339 time> stdout|stderr F|P <text>", returns true.
/// A 'P' (partial) line is appended to *partial and *complete is set false; an
/// 'F' line sets *text to *partial + its text (partial is then cleared).
bool UnwrapCri(std::string_view line, std::string* partial, std::string* text, bool* complete);

/// JSON-wrapped lines: when line is a JSON object with a log text field, sets
/// *texts to its lines (a payload may hold several) and *host to the machine it
/// names (empty when none) and returns true.
/// Most records (docker's json-file, Cloud Logging's, fluent-bit's) are read by
/// hand; a line the hand reader leaves (a surrogate escape, deep nesting, an
/// escaped key, no JSON) by the JSON parser, as UnwrapJsonByParser (the tests and
/// jsonline_fuzzer hold the two equal).
bool UnwrapJson(std::string_view line, std::vector<std::string>* texts, std::string* host);
bool UnwrapJsonByParser(std::string_view line, std::vector<std::string>* texts, std::string* host);

}  // namespace oomlens

#endif  // OOMLENS_CORE_INPUT_UNWRAP_H_
