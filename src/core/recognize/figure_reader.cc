#include "core/recognize/figure_reader.h"

#include <algorithm>
#include <cmath>

#include "core/input/unwrap.h"
#include "core/model/fact_values.h"
#include "core/rules/signature_patterns.h"

namespace oomlens {

bool Supersedes(const FactValue& value, const FactValue& old) {
  bool numeric = value.type == FactType::kSize || value.type == FactType::kCount;
  bool consistent =
      numeric && std::fabs(Gap(value.integer, old.integer)) <= value.tolerance + old.tolerance + 0.5;
  return consistent && value.tolerance < old.tolerance;
}

const FactValue* FigureFacts::Find(const FactInfo* info) const {
  for (const auto& f : facts)
    if (f.first == info) return &f.second;
  return nullptr;
}

std::string_view FigureFacts::Identity(std::string_view name) const {
  for (auto it = identities.rbegin(); it != identities.rend(); ++it)
    if (it->first->name == name) return it->second;
  return "";
}

bool FigureFacts::HasRequired(const Signature& sig) const {
  for (const auto& name : sig.require) {
    bool found =
        std::any_of(facts.begin(), facts.end(), [&name](const auto& f) { return f.first->name == name; });
    if (!found) return false;
  }
  return true;
}

namespace {

// The fact pattern of figure sig that matches where its start pattern does
// ("Using \(GB\) [\d.]+" and "Using \(GB\) (?P<used>[\d.]+)"): FindStart matches
// that one instead, and ReadFacts reads its captures from the same match. -1 when none.
int StartFact(const Signature& sig) {
  if (!sig.start_simple || !FigureReader::IsFigure(sig)) return -1;
  for (size_t k = 0; k < sig.facts.size(); ++k)
    if (sig.facts[k].simple && sig.start_simple->MatchesAs(*sig.facts[k].simple)) return static_cast<int>(k);
  return -1;
}

}  // namespace

FigureReader::FigureReader(const RuleData& rules, std::shared_ptr<const Prefilter> prefilter)
    : rules_(rules), prefilter_(std::move(prefilter)) {
  starts_by_literal_.resize(rules.literals.size());
  start_fact_.assign(rules.signatures.size(), -1);
  for (size_t s = 0; s < rules.signatures.size(); ++s) {
    const Signature& sig = rules.signatures[s];
    start_fact_[s] = StartFact(sig);
    if (!sig.start || (!sig.after.empty() && sig.before.empty())) continue;  // tried only after its events
    for (int i : sig.literal_indices) starts_by_literal_[static_cast<size_t>(i)].push_back(s);
  }
}

const Signature* FigureReader::FindStart(std::string_view message, StartMatch* start) const {
  if (start) start->fact = -1;
  if (!prefilter_->Which(message, &literals_present_)) return nullptr;
  if (literals_present_ != candidates_for_) {  // else the last line's candidates (lines of one shape)
    candidates_for_ = literals_present_;
    candidates_.clear();
    for (size_t i : literals_present_)
      if (i < starts_by_literal_.size())
        candidates_.insert(candidates_.end(), starts_by_literal_[i].begin(), starts_by_literal_[i].end());
    std::sort(candidates_.begin(), candidates_.end());  // the signatures' order is their priority
    candidates_.erase(std::unique(candidates_.begin(), candidates_.end()), candidates_.end());
  }
  for (size_t s : candidates_) {
    const Signature& sig = rules_.signatures[s];
    int fact = start ? start_fact_[s] : -1;
    if (fact < 0) {
      if (Contains(*sig.start, sig.start_simple.get(), message)) return &sig;
    } else if (MatchFactSpans(sig.facts[static_cast<size_t>(fact)], message, &start->match)) {
      start->fact = fact;
      return &sig;
    }
  }
  return nullptr;
}

bool FigureReader::IsFigure(const Signature& sig) {
  return (sig.series || !sig.activity.empty()) && !sig.follow && !sig.complete && !sig.items &&
         sig.aggregates.empty() && sig.annotates.empty() && !sig.listing() && sig.kind_when.empty() &&
         !sig.reject;
}

void FigureReader::ReadFacts(const Signature& sig, std::string_view message, FigureFacts* out,
                             const StartMatch* start) {
  const std::function<void(const FactGroup&, std::string_view)> read = [out](const FactGroup& group,
                                                                             std::string_view value) {
    const FactInfo* info = group.info;
    if (info->type == FactType::kIdentity) {
      out->identities.emplace_back(info, std::string(value));
      return;
    }
    auto kept =
        std::find_if(out->facts.begin(), out->facts.end(), [info](const auto& f) { return f.first == info; });
    bool first = kept == out->facts.end();
    FactValue again;  // a fact read before: this value replaces it only when more exact
    if (first) out->facts.emplace_back(info, FactValue{});
    FactValue* v = first ? &out->facts.back().second : &again;  // read in place: no copy of its text
    std::string error;
    if (!ReadGroup(group, value, v, &error)) {
      if (first) out->facts.pop_back();
      out->warnings.push_back("ignored " + info->name + ": " + error);
      return;
    }
    if (!first && Supersedes(again, kept->second)) kept->second = std::move(again);
  };
  bool matched = start && start->fact >= 0 && start->match.text.data() == message.data() &&
                 start->match.text.size() == message.size();
  for (size_t k = 0; k < sig.facts.size(); ++k) {
    if (matched && static_cast<size_t>(start->fact) == k) ReadFactMatch(sig.facts[k], start->match, read);
    else MatchFacts(sig.facts[k], message, read);
  }
}

bool FigureReader::Prepare(std::string_view raw_line, uint64_t offset, PreparedFigure* out) {
  std::string partial, unwrapped, host;
  bool complete = true;
  if (UnwrapCri(raw_line, &partial, &unwrapped, &complete)) return false;  // the recogniser joins those
  std::vector<std::string> payloads;
  if (!raw_line.empty() && (raw_line.front() == '{' || raw_line.front() == ' ') &&
      UnwrapJson(raw_line, &payloads, &host))
    return false;
  const CleanLine& clean = cleaner_.Clean(raw_line);
  const Signature* sig = FindStart(clean.message, &prepared_start_);
  if (!sig || !IsFigure(*sig)) return false;
  out->offset = offset;
  out->sig = sig;
  out->prefix_host = clean.context.host;
  out->time_seconds = TimestampSeconds(clean.context.timestamp).value_or(-1);
  out->figure.Clear();
  ReadFacts(*sig, clean.message.substr(0, kMaxMessageBytes), &out->figure, &prepared_start_);
  return true;
}

}  // namespace oomlens
