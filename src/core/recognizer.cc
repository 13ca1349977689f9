#include "core/recognizer.h"

#include <re2/re2.h>

#include "core/signature_patterns.h"

namespace oomlens {
namespace {

constexpr size_t kMaxMessageBytes = 64 * 1024;  // joined text of one message
constexpr size_t kMaxExcerptLine = 2000;        // bytes kept of each excerpt line
constexpr size_t kMaxOpenStreams = 4096;

// Records one captured value on the event: identities in their fields, facts
// in the map (a more precise value of the same fact wins over a rounded one).
void Record(const FactInfo& info, std::string_view text, Event* event, std::vector<Problem>* problems) {
  if (info.type == FactType::kIdentity) {
    std::string value(text);
    if (info.name == "replica") event->replica = value;
    else if (info.name == "partition") event->partition = value;
    else if (info.name == "host") event->host = value;
    else if (info.name == "device") event->device = value;
    else if (info.name == "rank") event->rank = value;
    return;
  }
  FactValue value;
  std::string error;
  if (!MakeFact(info, text, &value, &error)) {
    problems->push_back(Problem{Problem::Severity::kWarning,
                                event->where.input + ":" + std::to_string(event->where.line),
                                "ignored " + info.name + ": " + error,
                                "the rest of the message was read"});
    return;
  }
  auto it = event->facts.find(info.name);
  if (it == event->facts.end() || value.tolerance < it->second.tolerance) {
    event->facts[info.name] = std::move(value);
  }
}

}  // namespace

Recognizer::Recognizer(const RuleData& rules, EventSink sink, std::vector<Problem>* problems)
    : rules_(rules), sink_(std::move(sink)), problems_(problems), prefilter_(rules.literals) {}

void Recognizer::BeginInput(const std::string& name, int index) {
  Finish();
  input_ = name;
  input_index_ = index;
}

const Signature* Recognizer::FindStart(std::string_view message) const {
  if (!prefilter_.MayMatch(message)) return nullptr;
  for (const auto& sig : rules_.signatures) {
    if (sig.start && Contains(*sig.start, message)) return &sig;
  }
  return nullptr;
}

void Recognizer::Feed(const Line& line) {
  if (open_.empty() && !prefilter_.MayMatch(line.text)) return;
  const CleanLine& clean = cleaner_.Clean(line.text);
  const std::string& stream = clean.context.host;
  auto it = open_.find(stream);
  if (it != open_.end()) {
    if (Continue(&it->second, clean) == Step::kJoined) return;
    Close(std::move(it->second));
    open_.erase(it);
  }
  if (const Signature* sig = FindStart(clean.message)) OpenMessage(sig, clean, line.number);
}

void Recognizer::OpenMessage(const Signature* sig, const CleanLine& line, uint64_t number) {
  if (open_.size() >= kMaxOpenStreams) Finish();
  Open open;
  open.sig = sig;
  open.where = Location{input_, number};
  open.context = line.context;
  open.text = std::string(line.message.substr(0, kMaxMessageBytes));
  open.excerpt.emplace_back(line.display.substr(0, kMaxExcerptLine));
  open.lines = 1;
  UpdateState(&open);
  if (open.complete && !sig->follow) {
    Close(std::move(open));
    return;
  }
  open_[line.context.host] = std::move(open);
}

Recognizer::Step Recognizer::Continue(Open* open, const CleanLine& line) {
  const Signature& sig = *open->sig;
  if (open->lines >= sig.max_lines || open->text.size() >= kMaxMessageBytes) return Step::kClosed;
  bool blank = line.message.empty();
  if (!open->complete) {
    if (blank) return Step::kClosed;
    if (const Signature* other = FindStart(line.message)) {
      if (open->has_required) return Step::kClosed;
      if (other != &sig && other->priority >= sig.priority) return Step::kClosed;
    } else if (open->wrapped >= sig.max_wrap) {
      return Step::kClosed;
    }
    ++open->wrapped;
    Join(open, line);
    return Step::kJoined;
  }
  if (blank) {
    if (open->blank_run >= 1) return Step::kClosed;
    ++open->blank_run;
    ++open->lines;
    return Step::kJoined;
  }
  if (!sig.follow || !Contains(*sig.follow, line.message)) return Step::kClosed;
  Join(open, line);
  return Step::kJoined;
}

void Recognizer::Join(Open* open, const CleanLine& line) {
  open->text += ' ';
  open->text.append(line.message.substr(0, kMaxMessageBytes - std::min(kMaxMessageBytes, open->text.size())));
  open->excerpt.emplace_back(line.display.substr(0, kMaxExcerptLine));
  ++open->lines;
  open->blank_run = 0;
  if (!open->complete) UpdateState(open);
}

void Recognizer::UpdateState(Open* open) const {
  const Signature& sig = *open->sig;
  std::vector<bool> found(sig.require.size(), false);
  for (const auto& pattern : sig.facts) {
    MatchFacts(pattern, open->text, [&](const FactInfo& info, std::string_view) {
      for (size_t i = 0; i < sig.require.size(); ++i) found[i] = found[i] || sig.require[i] == info.name;
    });
  }
  open->has_required = std::find(found.begin(), found.end(), false) == found.end();
  open->complete = sig.complete ? Contains(*sig.complete, open->text) : open->has_required;
}

void Recognizer::Close(Open&& open) {
  const Signature& sig = *open.sig;
  Event event;
  event.signature = sig.id;
  event.kind = sig.kind;
  event.code = sig.code;
  event.title = sig.title;
  event.where = open.where;
  event.input_index = input_index_;
  event.host = open.context.host;
  event.rank = open.context.rank;
  for (const auto& pattern : sig.facts) {
    MatchFacts(pattern, open.text,
               [&](const FactInfo& info, std::string_view text) { Record(info, text, &event, problems_); });
  }
  for (const auto& name : sig.require) {
    if (event.facts.count(name)) continue;
    problems_->push_back(Problem{
        Problem::Severity::kWarning, open.where.input + ":" + std::to_string(open.where.line),
        "a " + sig.kind + " message without " + name + " was skipped (cut off or reworded?)",
        "if this is a real OOM message, add its wording to a signature (see docs/rules.md)"});
    return;
  }
  event.excerpt = std::move(open.excerpt);
  sink_(std::move(event));
}

void Recognizer::Finish() {
  std::map<std::string, Open> open;
  open.swap(open_);
  std::vector<Open> by_line;
  for (auto& entry : open) by_line.push_back(std::move(entry.second));
  std::sort(by_line.begin(), by_line.end(),
            [](const Open& a, const Open& b) { return a.where.line < b.where.line; });
  for (auto& o : by_line) Close(std::move(o));
}

}  // namespace oomlens
