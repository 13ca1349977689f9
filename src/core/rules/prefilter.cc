#include "core/rules/prefilter.h"

#include <re2/re2.h>

namespace oomlens {
namespace {

// One alternation of all literals, matched by RE2's DFA in a single pass: the
// cost per line no longer grows with the number of signatures.
std::unique_ptr<re2::RE2> Compile(const std::vector<std::string>& literals) {
  std::string pattern;
  for (const auto& literal : literals) {
    if (literal.empty()) return nullptr;  // an empty literal matches every line
    pattern += (pattern.empty() ? "" : "|") + RE2::QuoteMeta(literal);
  }
  if (pattern.empty()) return nullptr;
  RE2::Options options(RE2::Latin1);
  options.set_log_errors(false);
  options.set_max_mem(64 << 20);
  auto re = std::make_unique<re2::RE2>(pattern, options);
  return re->ok() ? std::move(re) : nullptr;
}

std::unique_ptr<re2::RE2::Set> CompileSet(const std::vector<std::string>& literals) {
  RE2::Options options(RE2::Latin1);
  options.set_log_errors(false);
  options.set_max_mem(64 << 20);
  auto set = std::make_unique<re2::RE2::Set>(options, RE2::UNANCHORED);
  for (const auto& literal : literals) {
    if (literal.empty() || set->Add(RE2::QuoteMeta(literal), nullptr) < 0) return nullptr;
  }
  return !literals.empty() && set->Compile() ? std::move(set) : nullptr;
}

// The literals that hold no other literal: a line holds one of the literals
// exactly when it holds one of these. search finds every literal in a literal.
std::vector<std::string> Minimal(const std::vector<std::string>& literals, const LiteralSearch& search) {
  std::vector<std::string> minimal;
  for (size_t i = 0; i < literals.size(); ++i) {
    bool holds_another = false;
    search.ForEach(literals[i], [&](size_t j) {  // a literal found in i is no longer; the same: the first
      holds_another = j != i && (literals[j].size() < literals[i].size() || j < i);
      return !holds_another;
    });
    if (!holds_another) minimal.push_back(literals[i]);
  }
  return minimal;
}

}  // namespace

Prefilter::Prefilter(std::vector<std::string> literals)
    : literals_(std::move(literals)), search_(LiteralSearch::Build(literals_)) {
  if (search_) first_pass_ = LiteralSearch::Build(Minimal(literals_, *search_));
  if (!first_pass_) {
    any_ = Compile(literals_);
    each_ = CompileSet(literals_);
  }
}

Prefilter::~Prefilter() = default;

bool Prefilter::MayMatch(std::string_view text) const {
  if (first_pass_) return first_pass_->FindInFirstLine(text) != std::string_view::npos;
  if (!any_) return !literals_.empty();  // no usable pattern: let every line through
  return RE2::PartialMatch(re2::StringPiece(text), *any_);
}

size_t Prefilter::Find(std::string_view text, NewlineTally* counted) const {
  if (first_pass_) return first_pass_->FindInFirstLine(text, counted);
  if (!any_) return literals_.empty() ? std::string_view::npos : 0;
  re2::StringPiece match;
  if (!any_->Match(re2::StringPiece(text), 0, text.size(), RE2::UNANCHORED, &match, 1)) {
    return std::string_view::npos;
  }
  return static_cast<size_t>(match.data() - text.data());
}

bool Prefilter::Which(std::string_view text, std::vector<size_t>* present) const {
  present->clear();
  if (search_) {
    search_->Collect(text, present);
  } else if (each_) {
    std::vector<int> hits;
    each_->Match(re2::StringPiece(text), &hits);
    present->assign(hits.begin(), hits.end());
  } else {
    for (size_t i = 0; i < literals_.size(); ++i)  // no set (too large): one search per literal
      if (!literals_[i].empty() && text.find(literals_[i]) != std::string_view::npos) present->push_back(i);
  }
  return !present->empty();
}

}  // namespace oomlens
