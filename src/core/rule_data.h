// Compiled signatures and cause rules (internal to the core).
#ifndef OOMLENS_CORE_RULE_DATA_H_
#define OOMLENS_CORE_RULE_DATA_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/expr.h"
#include "core/template.h"
#include "oomlens/facts.h"

namespace re2 {
class RE2;
}

namespace oomlens {

/// A regex whose named groups write facts.
struct FactPattern {
  std::shared_ptr<re2::RE2> re;
  std::vector<std::pair<int, const FactInfo*>> groups;  // group index -> fact
};

/// A sample carried by a signature or a rule, with where it was written.
struct Sample {
  nlohmann::json json;
  std::string where;  // file:line:col
};

/// How a message family is recognised. See docs/rules.md.
struct Signature {
  std::string id, kind, code, title, file, where;
  int priority = 0;
  std::vector<std::string> literals;         // prefilter: a start line holds one
  std::shared_ptr<re2::RE2> start;           // opens a message
  std::shared_ptr<re2::RE2> complete;        // the core message is all there
  std::shared_ptr<re2::RE2> follow;          // lines that may follow a complete message
  std::vector<FactPattern> facts;
  std::vector<std::string> require;          // facts without which there is no event
  int max_wrap = 4;                          // lines joined before completion
  int max_lines = 40;                        // lines in one message at most
  std::vector<Sample> samples;
};

/// A line of a summary, evidence or advice, shown when its condition holds.
struct TemplateLine {
  std::shared_ptr<Expr> when;  // may be null
  std::shared_ptr<Template> text;
};

/// How a cause is decided from facts. See docs/rules.md.
struct CauseRule {
  std::string id, cause, file, where;
  std::vector<std::string> kinds;  // empty: any kind
  std::shared_ptr<Expr> when;
  double confidence = 0.5;
  bool fallback = false;  // used only when no other rule matches
  std::vector<TemplateLine> summary, evidence, advice;
  std::vector<std::string> docs;
  std::vector<Sample> samples;
};

struct RuleData {
  std::vector<Signature> signatures;  // highest priority first, then load order
  std::vector<CauseRule> causes;
  std::vector<std::string> literals;  // union of all signatures' literals
};

}  // namespace oomlens

#endif  // OOMLENS_CORE_RULE_DATA_H_
