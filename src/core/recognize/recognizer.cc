#include "core/recognize/recognizer.h"

#include <re2/re2.h>

#include <algorithm>
#include <cmath>

#include "core/model/fact_values.h"
#include "core/recognize/figure_reader.h"
#include "core/rules/signature_patterns.h"
#include "oomlens/size.h"

namespace oomlens {
namespace {

constexpr size_t kMaxExcerptLine = 2000;  // bytes kept of each excerpt line
constexpr size_t kMaxOpenStreams = 4096;
constexpr size_t kMaxAnnotations = 16;  // most recent precursor warnings kept per input
constexpr size_t kMaxExcerptLines = 60;
constexpr uint64_t kStaleLines = 256;       // a stream silent this long has nothing more to add
constexpr uint64_t kListingGap = 3;         // lines between an event and the listing that follows it
constexpr size_t kMaxListingLines = 50000;  // lines of one listing kept for its entries

// Keeps the first value of a fact, unless a later one is the same value printed
// more precisely ("3.95G" then "(4,237,689,856 bytes)").
void KeepFact(const std::string& name, FactValue value, Facts* facts) {
  auto it = facts->find(name);
  if (it == facts->end()) {
    (*facts)[name] = std::move(value);
  } else if (Supersedes(value, it->second)) {
    it->second = std::move(value);
  }
}

std::string Where(const Location& where) { return where.input + ":" + std::to_string(where.line); }

// An identity fact goes to its field of the event.
void SetIdentity(const std::string& name, std::string value, Event* event) {
  if (name == "replica") event->replica = std::move(value);
  else if (name == "partition") event->partition = std::move(value);
  else if (name == "host") event->host = std::move(value);
  else if (name == "device") event->device = std::move(value);
  else if (name == "rank") event->rank = std::move(value);
}

// Records one captured value on the event: identities in their fields, facts
// in the map.
// False when the value printed cannot be read (it is left out, with a warning).
bool Record(const FactGroup& group, std::string_view text, Event* event, std::vector<Problem>* problems) {
  const FactInfo& info = *group.info;
  if (info.type == FactType::kIdentity) {
    SetIdentity(info.name, std::string(text), event);
    return true;
  }
  FactValue value;
  std::string error;
  if (!ReadGroup(group, text, &value, &error)) {
    problems->push_back(Problem{Problem::Severity::kWarning, Where(event->where),
                                "ignored " + info.name + ": " + error, "the rest of the message was read"});
    return false;
  }
  KeepFact(info.name, std::move(value), &event->facts);
  return true;
}

// Reads the entries of a listing (e.g. "Largest program allocations") from the
// message lines: an entry starts at a line matching items.start; every line of
// it is matched by each field pattern.
// Every match of items.start in text is one entry ("each" listings on one line).
std::vector<Allocation> ReadEachItem(const ItemSpec& items, const std::string& text, const Location& where,
                                     std::vector<Problem>* problems) {
  std::vector<Allocation> out;
  if (items.fields.empty() || items.fields.front().re != items.start) return out;  // no groups to read
  const FactPattern& fields = items.fields.front();  // the start pattern's own groups
  size_t pos = 0;
  while (pos < text.size() && static_cast<int>(out.size()) < items.max_items) {
    size_t end = 0;
    Allocation a;
    if (!MatchFactsFrom(fields, text, pos, &end, [&](const FactGroup& group, std::string_view value) {
          FactValue v;
          std::string error;
          if (ReadGroup(group, value, &v, &error)) a.fields.emplace(group.info->name, v);
          else
            problems->push_back(Problem{Problem::Severity::kWarning, Where(where),
                                        "ignored allocation " + group.info->name + ": " + error, ""});
        })) {
      break;
    }
    out.push_back(std::move(a));
    pos = std::max(end, pos + 1);
  }
  return out;
}

std::vector<Allocation> ReadItems(const ItemSpec& items, const std::vector<std::string>& lines,
                                  const Location& where, std::vector<Problem>* problems) {
  std::vector<Allocation> out;
  bool open = false;
  for (const auto& line : lines) {
    if (Contains(*items.start, line)) {
      if (static_cast<int>(out.size()) >= items.max_items) break;
      out.emplace_back();
      open = true;
    }
    if (!open) continue;
    for (const auto& pattern : items.fields) {
      MatchFacts(pattern, line, [&](const FactGroup& group, std::string_view text) {
        FactValue value;
        std::string error;
        if (ReadGroup(group, text, &value, &error)) {
          out.back().fields.emplace(group.info->name, std::move(value));
        } else {
          problems->push_back(Problem{Problem::Severity::kWarning, Where(where),
                                      "ignored allocation " + group.info->name + ": " + error, ""});
        }
      });
    }
  }
  return out;
}

// The size facts (*_bytes) sig reads in text.
std::set<std::string> SizesIn(const Signature& sig, std::string_view text) {
  std::set<std::string> names;
  for (const auto& pattern : sig.facts) {
    MatchFacts(pattern, text, [&names](const FactGroup& group, std::string_view) {
      const std::string& name = group.info->name;
      if (name.size() > 6 && name.compare(name.size() - 6, 6, "_bytes") == 0) names.insert(name);
    });
  }
  return names;
}

// Whether line, read by line_sig, gives a size the open message (text, read by sig)
// gave already: it is another message's figure, not this one's next sentence
// ("Tried to allocate 20.00 MiB" after "... Tried to allocate 3.00 GiB ...").
bool RestatesASize(const Signature& sig, std::string_view text, const Signature& line_sig,
                   std::string_view line) {
  std::set<std::string> before = SizesIn(sig, text);
  if (before.empty()) return false;
  for (const std::string& name : SizesIn(line_sig, line))
    if (before.count(name)) return true;
  return false;
}

}  // namespace

Recognizer::Recognizer(const RuleData& rules, EventSink sink, std::vector<Problem>* problems)
    : rules_(rules),
      sink_(std::move(sink)),
      problems_(problems),
      prefilter_(rules.prefilter ? rules.prefilter : std::make_shared<const Prefilter>(rules.literals)),
      reader_(rules, prefilter_),
      lines_(
          [this](const LogicalLine& line) { Route(line); },
          [this](std::string_view text) { return HoldsStart(text); },
          [this](std::string_view text, bool known_candidate) { return MayMatter(text, known_candidate); }) {
  for (const auto& sig : rules.signatures) listing_targets_.insert(sig.after.begin(), sig.after.end());
  figure_infos_ = {FindFact("sample_used_bytes"), FindFact("sample_limit_bytes"), FindFact("sample_key"),
                   FindFact("program")};
}

void Recognizer::BeginInput(const std::string& name, int index, const std::string& default_host) {
  Finish();
  lines_.Begin();
  annotations_.clear();
  preceding_.clear();
  input_ = name;
  input_index_ = index;
  default_host_ = default_host;
  next_sweep_ = 0;
}

const Signature* Recognizer::FindListingStart(const std::string& stream, std::string_view message) const {
  auto it = pending_.find(stream);
  if (it == pending_.end() || current_line_ > it->second.last_line + kListingGap) return nullptr;
  const std::string& kind = it->second.event.kind;
  for (const auto& sig : rules_.signatures) {
    if (sig.after.empty() || std::find(sig.after.begin(), sig.after.end(), kind) == sig.after.end()) continue;
    if (sig.start && Contains(*sig.start, message))
      return StartsOwnMessage(message, sig, /*follows_event=*/true) ? nullptr : &sig;
  }
  return nullptr;
}

// A line that starts a message of another signature is that message, not a line
// of a listing (an OOM printed right under another one is not its dump). Figures and
// other listings are no messages: a listing reads through them, and through an
// annotation's start once it follows its event (a listing that waits for an event
// leaves a family's annotation its lines).
bool Recognizer::StartsOwnMessage(std::string_view message, const Signature& listing,
                                  bool follows_event) const {
  if (!prefilter_->MayMatch(message)) return false;
  const Signature* other = reader_.FindStart(message);
  return other && other != &listing && !other->listing() && !(follows_event && !other->annotates.empty()) &&
         !FigureReader::IsFigure(*other);
}

void Recognizer::FlushPending(uint64_t before_line) {
  std::vector<Event> ready;
  for (auto it = pending_.begin(); it != pending_.end();) {
    auto open = open_.find(it->first);
    bool listing_open = open != open_.end() && !open->second.sig->after.empty();
    if (!listing_open && it->second.last_line + kListingGap < before_line) {
      ready.push_back(Released(std::move(it->second)));
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
  std::sort(ready.begin(), ready.end(),
            [](const Event& a, const Event& b) { return a.where.line < b.where.line; });
  for (auto& e : ready) sink_(std::move(e));
}

void Recognizer::CloseStale(uint64_t line) {
  std::vector<Open> stale;
  for (auto it = open_.begin(); it != open_.end();) {
    if (it->second.last_line + kStaleLines < line) {
      stale.push_back(std::move(it->second));
      it = open_.erase(it);
    } else {
      ++it;
    }
  }
  std::sort(stale.begin(), stale.end(),
            [](const Open& a, const Open& b) { return a.where.line < b.where.line; });
  for (auto& o : stale) Close(std::move(o));
}

void Recognizer::Feed(const Line& line, const PreparedFigure* prepared) {
  if (prepared && idle() && prepared->offset == line.offset) {  // read ahead, as FeedLogical would
    current_line_ = line.number;
    SendFigure(*prepared->sig, prepared->figure, prepared->prefix_host, prepared->time_seconds, line.number,
               "");
    return;
  }
  lines_.Push(line);
}

bool Recognizer::Busy() const { return !open_.empty() || !pending_.empty() || !preceding_.empty(); }

bool Recognizer::MayMatter(std::string_view text, bool known_candidate) const {
  return Busy() || known_candidate || prefilter_->MayMatch(text);
}

// A logical line of the input: closes what it ends, then is recognised.
void Recognizer::Route(const LogicalLine& line) {
  if (!pending_.empty()) FlushPending(line.number);
  if (!preceding_.empty()) DropStalePreceding(line.number);
  if (!open_.empty() && line.number >= next_sweep_) {
    CloseStale(line.number);
    next_sweep_ = line.number + 64;
  }
  bool holds_literal = line.known_start >= 0;  // HoldsStart found one
  if (line.known_clear() ? !Busy() : !MayMatter(line.text, line.known_candidate || holds_literal)) return;
  physical_ = line.physical;
  FeedLogical(line.text, line.number, line.host, line.known_start);
  physical_ = nullptr;
}

// A line that holds a message's start is recognised on its own (and joins an
// open message in Continue when it is its rest), so the paste restorer keeps it apart.
int Recognizer::HoldsStart(std::string_view text) {
  // Cleaning only removes a prefix, so a line without a literal cannot hold a start.
  if (!prefilter_->MayMatch(text)) return PasteRestorer::kNoLiteral;
  const Signature* sig = reader_.FindStart(cleaner_.Clean(text).message);
  return sig ? static_cast<int>(sig - rules_.signatures.data()) + 1 : 0;
}

const Signature* Recognizer::StartOf(int holds_start) const {
  return holds_start > 0 ? &rules_.signatures[static_cast<size_t>(holds_start - 1)] : nullptr;
}

void Recognizer::FeedLogical(std::string_view text, uint64_t number, std::string_view host, int known_start) {
  current_line_ = number;
  start_match_.fact = -1;
  const CleanLine& clean = cleaner_.Clean(text, host);  // valid until the next line's
  const std::string& stream = clean.context.host;
  auto it = open_.find(stream);
  if (it != open_.end()) {
    if (Continue(&it->second, clean) == Step::kJoined) return;
    Close(std::move(it->second));
    open_.erase(it);
  }
  const Signature* sig = FindListingStart(stream, clean.message);
  bool listing_after = sig != nullptr;
  if (!sig &&
      (sig = known_start >= 0 ? StartOf(known_start) : reader_.FindStart(clean.message, &start_match_))) {
    auto pending = pending_.find(stream);  // another message: no listing follows that event
    if (pending != pending_.end()) {
      sink_(Released(std::move(pending->second)));
      pending_.erase(pending);
    }
  }
  if (sig && FigureReader::IsFigure(*sig)) {
    EmitFigure(*sig, clean, number);
  } else if (sig) {
    OpenMessage(sig, clean, number, listing_after);
  } else if (!preceding_.empty()) {
    BridgeTraceback(stream, clean.message, number);
  }
}

// An event of sig at where, with what the line's prefix said (host, rank, time).
Event Recognizer::NewEvent(const Signature& sig, const LineContext& context, const Location& where) const {
  Event event;
  event.signature = sig.id;
  event.kind = sig.kind;
  event.code = sig.code;
  event.title = sig.title;
  event.match = sig.match;
  event.where = where;
  event.input_index = input_index_;
  event.host = context.host.empty() ? default_host_ : context.host;
  event.rank = context.rank;
  event.time_seconds = TimestampSeconds(context.timestamp).value_or(-1);
  event.time = TimestampText(context.timestamp);
  event.joins = sig.joins;  // a memory record: kept apart, it joins a failure at the end
  if (!sig.phase.empty()) {
    event.phase.name = sig.phase;
    event.phase.evidence = "its message family: " + sig.id;
  }
  return event;
}

// A memory figure or a sign of progress, read at once from its line, goes to the
// figure sink as a view: the one way figures travel, for scans and samples alike.
void Recognizer::EmitFigure(const Signature& sig, const CleanLine& line, uint64_t number) {
  figure_facts_.Clear();
  std::string_view text = sig.indented ? line.display : line.message;  // where indentation tells nesting
  FigureReader::ReadFacts(sig, text.substr(0, kMaxMessageBytes), &figure_facts_, &start_match_);
  double time_seconds = TimestampSeconds(line.context.timestamp).value_or(-1);
  SendFigure(sig, figure_facts_, line.context.host, time_seconds, number, text);
}

// Reports the values a figure line had that could not be read; true when the
// figure has every fact its signature requires.
bool Recognizer::FigureComplete(const Signature& sig, const FigureFacts& facts, uint64_t number) {
  for (const auto& warning : facts.warnings)
    problems_->push_back(Problem{Problem::Severity::kWarning, input_ + ":" + std::to_string(number), warning,
                                 "the rest of the message was read"});
  return facts.HasRequired(sig);  // a figure without its number: nothing to add
}

void Recognizer::SendFigure(const Signature& sig, const FigureFacts& facts, const std::string& prefix_host,
                            double time_seconds, uint64_t number, std::string_view message) {
  if (!FigureComplete(sig, facts, number)) return;
  std::string_view host_fact = facts.Identity("host");
  Figure figure;
  figure.signature = sig.id;
  figure.message = message;
  figure.series = sig.series;
  figure.title = sig.title;
  figure.activity = sig.activity;
  figure.phase = sig.phase;
  figure.input = &input_;
  figure.input_index = input_index_;
  figure.line = number;
  figure.host = !host_fact.empty()     ? host_fact
                : !prefix_host.empty() ? std::string_view(prefix_host)
                                       : default_host_;
  figure.time_seconds = time_seconds;
  figure.used = facts.Find(figure_infos_.used);
  figure.limit = facts.Find(figure_infos_.limit);
  figure.key = facts.Find(figure_infos_.key);
  figure.program = facts.Find(figure_infos_.program);
  figure.facts = &facts.facts;
  figure_sink_(figure);
}

void Recognizer::OpenMessage(const Signature* sig, const CleanLine& line, uint64_t number,
                             bool listing_after) {
  if (open_.size() >= kMaxOpenStreams) CloseAll();
  Open open;
  open.sig = sig;
  open.listing_after = listing_after;
  open.where = Location{input_, number};
  open.context = line.context;
  open.tallies.resize(sig->aggregates.size());
  open.last_line = number;
  open.text = std::string(line.message.substr(0, kMaxMessageBytes));
  open.messages.emplace_back(line.message.substr(0, kMaxExcerptLine));
  Tally(&open, line.message);
  KeepExcerpt(&open, line);
  open.lines = 1;
  UpdateState(&open);
  if (open.complete && !sig->follow) {
    Close(std::move(open));
    return;
  }
  open_[line.context.host] = std::move(open);
}

// The signature whose message line starts, as the open message reads it: not its
// own next sentence (a fragment of its kind that restates no size) and not a
// listing's line, which is no message of its own.
const Signature* Recognizer::MessageStartedBy(const Open& open, std::string_view message) const {
  const Signature& sig = *open.sig;
  const Signature* other = reader_.FindStart(message);
  if (other && other->fragment && other->kind == sig.kind && other != &sig &&
      !RestatesASize(sig, open.text, *other, message))
    return nullptr;
  if (other && other->listing() && other != &sig) return nullptr;
  return other;
}

// Whether a line the complete message's `follow` takes is an OOM of its own: read
// by the signature it starts, it names a failed request and the open message names
// none ("Tried to allocate 20.00 MiB. GPU 0 has a total capacity of ..." under a job
// kill reads as continuation figures, but it is a PyTorch OOM), or it gives again a
// size the open message gave ("There are 147.64M free ..." under a message that said
// what was free), or the open message is the general reader's structural guess and
// the line is another family's own wording (a TPU sentence under a generic kill
// line: the general `follow` takes figure lines, not other runtimes' messages). One
// message fails one request and says each figure once; a table's heading or a
// figure line stays this message's.
bool Recognizer::StartsAnotherMessage(const Open& open, std::string_view message) const {
  if (!prefilter_->MayMatch(message)) return false;
  const Signature* other = MessageStartedBy(open, message);
  if (!other || other == open.sig || other->priority < open.sig->priority || FigureReader::IsFigure(*other))
    return false;
  bool general = open.sig->match < 1;
  if (general && other->match >= 1 && other->kind != open.sig->kind && !other->items) return true;
  return (SizesIn(*other, message).count("requested_bytes") &&
          !SizesIn(*open.sig, open.text).count("requested_bytes")) ||
         RestatesASize(*open.sig, open.text, *other, message);
}

Recognizer::Step Recognizer::Continue(Open* open, const CleanLine& line) {
  const Signature& sig = *open->sig;
  if (open->lines >= sig.max_lines || open->text.size() >= kMaxMessageBytes) return Step::kClosed;
  bool blank = line.message.empty();
  if (!open->complete) {
    if (blank) return Step::kClosed;
    const Signature* other = MessageStartedBy(*open, line.message);
    if (other) {
      // A start of another message closes this one, unless it is the rest of
      // this message: the same signature, and joining it completes the message.
      // A general signature's `complete` says only that a sentence ended, so for it
      // a line that starts a message is one (two one-line OOMs one under the other
      // are two: attack review W2).
      bool general = sig.match < 1;
      bool completes = other == &sig && sig.complete && !general &&
                       !RestatesASize(sig, open->text, sig, line.message) &&
                       Contains(*sig.complete, open->text + " " + std::string(line.message));
      if (open->has_required && !completes) return Step::kClosed;
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
  if (sig.listing() && StartsOwnMessage(line.message, sig, open->listing_after)) return Step::kClosed;
  if (!sig.listing() && StartsAnotherMessage(*open, line.message)) return Step::kClosed;
  Join(open, line);
  return Step::kJoined;
}

// The excerpt shows lines as printed: a restored paste's physical lines.
void Recognizer::KeepExcerpt(Open* open, const CleanLine& line) {
  if (!physical_) {
    if (open->excerpt.size() < kMaxExcerptLines)
      open->excerpt.emplace_back(line.display.substr(0, kMaxExcerptLine));
    ++open->excerpt_total;
    return;
  }
  for (std::string_view printed : *physical_) {
    while (!printed.empty() && printed.back() == '\r') printed.remove_suffix(1);
    if (open->excerpt.size() < kMaxExcerptLines)
      open->excerpt.emplace_back(printed.substr(0, kMaxExcerptLine));
    ++open->excerpt_total;
  }
}

bool Recognizer::Tally(Open* open, std::string_view message) {
  bool took = false;
  const auto& aggregates = open->sig->aggregates;
  for (size_t i = 0; i < aggregates.size(); ++i) {
    const Aggregate& agg = aggregates[i];
    if (!agg.prefix.empty() && message.find(agg.prefix) == std::string_view::npos) continue;  // not compiled
    ForEachCapture(*agg.re, message, [&](std::string_view text) {
      const FactInfo* value_info = agg.sum ? agg.sum : agg.max;
      FactValue v;
      std::string error;
      if (value_info && !MakeFact(*value_info, text, &v, &error)) return;
      Open::Tally& t = open->tallies[i];
      t.sum += v.number;
      t.max = t.count == 0 ? v.number : std::max(t.max, v.number);
      ++t.count;
      took = true;
    });
  }
  return took;
}

void Recognizer::Join(Open* open, const CleanLine& line) {
  KeepExcerpt(open, line);
  open->last_line = current_line_;
  ++open->lines;
  open->blank_run = 0;
  // Its numbers are counted; keep the text small, unless the line is an entry of a
  // listing read line by line (a report that lists its rows and sums them by type).
  bool listed = open->sig->items && !open->sig->items->each;
  if (Tally(open, line.message) && !listed) return;
  open->text += ' ';
  open->text.append(line.message.substr(0, kMaxMessageBytes - std::min(kMaxMessageBytes, open->text.size())));
  if (open->messages.size() < kMaxListingLines) {
    open->messages.emplace_back(line.message.substr(0, kMaxExcerptLine));
  } else {
    ++open->dropped_lines;
  }
  open->blank_run = 0;
  if (!open->complete) UpdateState(open);
}

void Recognizer::UpdateState(Open* open) const {
  const Signature& sig = *open->sig;
  std::vector<bool> found(sig.require.size(), false);
  for (const auto& pattern : sig.facts) {
    MatchFacts(pattern, open->text, [&](const FactGroup& group, std::string_view) {
      for (size_t i = 0; i < sig.require.size(); ++i)
        found[i] = found[i] || sig.require[i] == group.info->name;
    });
  }
  open->has_required = std::find(found.begin(), found.end(), false) == found.end();
  open->complete = sig.complete ? Contains(*sig.complete, open->text) : open->has_required;
}

void Recognizer::Close(Open&& open) {
  const Signature& sig = *open.sig;
  if (sig.reject && Contains(*sig.reject, open.text)) return;  // a known non-failure
  Event event = NewEvent(sig, open.context, open.where);
  std::set<std::string_view> unreadable;  // printed, but not as a value oomlens reads
  std::vector<std::pair<std::string_view, Problem>> refused;
  for (const auto& pattern : sig.facts) {
    MatchFacts(pattern, open.text, [&](const FactGroup& group, std::string_view text) {
      std::vector<Problem> problem;
      if (Record(group, text, &event, &problem)) return;
      unreadable.insert(group.info->name);
      for (auto& p : problem) refused.emplace_back(group.info->name, std::move(p));
    });
  }
  std::string_view file =
      std::string_view(input_).substr(input_.find_last_of('/') + 1);  // npos + 1: all of it
  for (const auto& pattern : sig.input_facts) {
    MatchFacts(pattern, file, [&](const FactGroup& group, std::string_view text) {
      std::vector<Problem> ignored;  // a file name that does not read is no problem of the log's
      Record(group, text, &event, &ignored);
    });
  }
  for (auto& [name, problem] : refused)  // another pattern may have read it in a unit oomlens knows
    if (!event.facts.count(std::string(name))) problems_->push_back(std::move(problem));
  for (const auto& name : sig.require) {
    if (event.facts.count(name) || unreadable.count(name))
      continue;  // an OOM whose figure is unreadable is one
    problems_->push_back(
        Problem{Problem::Severity::kWarning, open.where.input + ":" + std::to_string(open.where.line),
                "a " + sig.kind + " message without " + name + " was skipped (cut off or reworded?)",
                "if this is a real OOM message, add its wording to a signature (see docs/rules.md)"});
    return;
  }
  for (size_t i = 0; i < sig.aggregates.size(); ++i) {
    const Open::Tally& t = open.tallies[i];
    if (t.count == 0) continue;
    const Aggregate& agg = sig.aggregates[i];
    auto put = [&event](const FactInfo* info, double value) {
      if (!info) return;
      double n = std::trunc(value);  // SizeValue and SaturatedCount stop at int64's ends
      event.facts.emplace(info->name,
                          info->type == FactType::kSize ? SizeValue(n) : CountValue(SaturatedCount(n)));
    };
    put(agg.sum, t.sum);
    put(agg.max, t.max);
    put(agg.count, static_cast<double>(t.count));
  }
  for (const auto& refinement : sig.kind_when) {
    if (Contains(*refinement.re, open.text)) {
      event.kind = refinement.kind;
      break;
    }
  }
  if (sig.items) {
    event.allocations = sig.items->each ? ReadEachItem(*sig.items, open.text, open.where, problems_)
                                        : ReadItems(*sig.items, open.messages, open.where, problems_);
  }
  if (open.dropped_lines > 0 ||
      (sig.items && static_cast<int>(event.allocations.size()) >= sig.items->max_items)) {
    problems_->push_back(
        Problem{Problem::Severity::kWarning, Where(open.where),
                "listing longer than oomlens keeps: " + std::to_string(event.allocations.size()) +
                    " entries read, " + std::to_string(open.dropped_lines) + " more lines not read",
                "its totals (aggregates) still count every line"});
  }
  event.excerpt = std::move(open.excerpt);
  event.excerpt_total = open.excerpt_total;
  std::string stream = open.context.host;
  if (open.listing_after) {
    JoinListing(std::move(event), sig, stream);
  } else if (!sig.before.empty()) {
    if (preceding_.size() >= kMaxOpenStreams) preceding_.clear();  // bounded, as open messages are
    preceding_[stream] = Preceding{&sig, std::move(event), open.last_line};
  } else {
    if (!sig.annotates.empty()) BridgePreceding(stream, open.where.line, open.last_line);
    Emit(std::move(event), sig, stream);
  }
}

// An annotation printed between a listing and its event (a dump, its 'Stats:'
// block, then the failure) does not part them: the listing reaches to its end.
void Recognizer::BridgePreceding(const std::string& stream, uint64_t first_line, uint64_t last_line) {
  auto it = preceding_.find(stream);
  if (it != preceding_.end() && first_line <= it->second.last_line + kListingGap + 1)
    it->second.last_line = std::max(it->second.last_line, last_line);
}

namespace {

std::string_view TrimLeft(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

}  // namespace

// A listing that no event followed closely enough is dropped: it never becomes an
// incident, and lines past it need no look (MayMatter). While a message of its
// stream is open (an annotation that may bridge it) it waits.
void Recognizer::DropStalePreceding(uint64_t line) {
  for (auto it = preceding_.begin(); it != preceding_.end();) {
    if (line > it->second.last_line + kListingGap + 1 && !open_.count(it->first)) it = preceding_.erase(it);
    else ++it;
  }
}

// A Python traceback printed between a listing and its failure (a handler prints
// torch.cuda.memory_summary(), then re-raises) does not part them: its header, its
// 'File "...", line N' frames, each frame's code line, and the chaining sentences.
void Recognizer::BridgeTraceback(const std::string& stream, std::string_view message, uint64_t line) {
  auto it = preceding_.find(stream);
  if (it == preceding_.end() || line > it->second.last_line + kListingGap + 1) return;
  std::string_view text = TrimLeft(message);
  bool frame = StartsWith(text, "File \"") && text.find("\", line ") != std::string_view::npos;
  bool code = it->second.after_frame && !text.empty();
  if (!frame && !code && !StartsWith(text, "Traceback (most recent call last)") &&
      !StartsWith(text, "During handling of the above exception") &&
      !StartsWith(text, "The above exception was the direct cause"))
    return;
  it->second.last_line = line;
  it->second.after_frame = frame;
}

// A listing joins the event it follows: its entries, the facts the event lacks,
// and its lines in the excerpt.
void Recognizer::JoinListing(Event&& listing, const Signature& sig, const std::string& stream) {
  auto it = pending_.find(stream);
  if (it == pending_.end()) return;  // FindListingStart opened it only after a pending event
  Pending& pending = it->second;
  Event& event = pending.event;
  pending.last_line = current_line_;
  if (!pending.listing && !listing.allocations.empty()) {  // the event's own entries first
    pending.listing = listing_sinks_ ? listing_sinks_() : std::make_unique<WholeListing>();
    for (auto& a : event.allocations) pending.listing->Add(std::move(a));
    event.allocations.clear();
  }
  size_t held = pending.listing ? pending.listing->count() : 0;
  size_t keep = sig.items ? static_cast<size_t>(sig.items->max_items) : held + listing.allocations.size();
  size_t room = keep > held ? keep - held : 0;
  if (listing.allocations.size() > room && !pending.warned) {  // a long dump arrives in pieces
    problems_->push_back(Problem{Problem::Severity::kWarning, Where(event.where),
                                 "allocation listing longer than " + std::to_string(keep) +
                                     " entries: the first ones are kept and summarised, the rest skipped",
                                 "the JSON report lists the entries kept"});
    pending.warned = true;
  }
  if (listing.allocations.size() > room) listing.allocations.resize(room);
  for (auto& a : listing.allocations) pending.listing->Add(std::move(a));
  AddListing(std::move(listing), sig, &event);
}

// A held event as it leaves: with the entries of the listings that joined it, as
// their sink gives them (summarised, the largest kept; or all of them).
Event Recognizer::Released(Pending&& pending) {
  if (!pending.listing) return std::move(pending.event);
  Event event = std::move(pending.event);
  uint64_t read = pending.listing->count();
  pending.listing->Finish(&event.listing_facts, &event.allocation_groups, &event.allocations);
  event.entries_not_kept += read - event.allocations.size();
  return event;
}

// What any listing gives the event it joins: the facts the event lacks, the
// listing's id, and its lines after the event's in the excerpt (a reader sees the
// failure first).
void Recognizer::AddListing(Event&& listing, const Signature& sig, Event* event) {
  for (auto& [name, value] : listing.facts) event->facts.emplace(name, std::move(value));
  event->listings.push_back(sig.id);
  for (auto& line : listing.excerpt) {
    if (event->excerpt.size() < kMaxExcerptLines) event->excerpt.push_back(std::move(line));
  }
  event->excerpt_total += listing.excerpt_total;
}

// A listing printed right before an event of its kinds in the same stream joins it.
void Recognizer::JoinPreceding(Event* event, const std::string& stream) {
  auto it = preceding_.find(stream);
  if (it == preceding_.end()) return;
  Preceding preceding = std::move(it->second);
  preceding_.erase(it);
  const auto& kinds = preceding.sig->before;
  bool close = event->where.line <= preceding.last_line + kListingGap + 1;
  if (!close || std::find(kinds.begin(), kinds.end(), event->kind) == kinds.end()) return;
  AddListing(std::move(preceding.listing), *preceding.sig, event);
}

void Recognizer::Emit(Event&& event, const Signature& sig, const std::string& stream) {
  if (sig.annotates.empty()) JoinPreceding(&event, stream);
  if (!sig.annotates.empty() && !emit_annotations_) {
    if (annotations_.size() >= kMaxAnnotations) annotations_.erase(annotations_.begin());
    annotations_.emplace_back(&sig, std::move(event));
    return;
  }
  for (auto it = annotations_.begin(); it != annotations_.end();) {
    const auto& kinds = it->first->annotates;
    if (std::find(kinds.begin(), kinds.end(), event.kind) == kinds.end()) {
      ++it;
      continue;
    }
    for (auto& [name, value] : it->second.facts) event.facts.emplace(name, std::move(value));
    it = annotations_.erase(it);
  }
  if (listing_targets_.count(event.kind)) {  // a listing may follow: hold the event back
    auto pending = pending_.find(stream);
    if (pending != pending_.end()) {
      sink_(Released(std::move(pending->second)));
      pending_.erase(pending);
    }
    pending_[stream] = Pending{std::move(event), current_line_};
    return;
  }
  sink_(std::move(event));
}

void Recognizer::Finish() {
  lines_.Flush();
  CloseAll();
}

void Recognizer::CloseAll() {
  std::map<std::string, Open> open;
  open.swap(open_);
  std::vector<Open> by_line;
  for (auto& entry : open) by_line.push_back(std::move(entry.second));
  std::sort(by_line.begin(), by_line.end(),
            [](const Open& a, const Open& b) { return a.where.line < b.where.line; });
  for (auto& o : by_line) Close(std::move(o));
  FlushPending(UINT64_MAX);
}

namespace {

// The facts of a figure as an event of its own, for checking samples: read again
// from the message the figure came from, by the same stateless reader.
Event FigureEvent(const RuleData& rules, const Figure& figure) {
  Event event;
  event.signature = std::string(figure.signature);
  event.where = Location{figure.input ? *figure.input : "", figure.line};
  for (const auto& sig : rules.signatures) {
    if (sig.id != figure.signature) continue;
    event.kind = sig.kind;
    event.title = sig.title;
    FigureFacts facts;
    FigureReader::ReadFacts(sig, figure.message.substr(0, kMaxMessageBytes), &facts);
    for (const auto& [info, value] : facts.facts) event.facts[info->name] = value;
    for (const auto& [info, value] : facts.identities) SetIdentity(info->name, value, &event);
    break;
  }
  if (event.host.empty()) event.host = std::string(figure.host);
  return event;
}

}  // namespace

std::vector<Event> RecognizeText(const RuleData& rules, std::string_view text, bool emit_annotations,
                                 std::vector<Problem>* problems) {
  std::vector<Event> events;
  Recognizer recognizer(
      rules, [&events](Event&& e) { events.push_back(std::move(e)); }, problems);
  recognizer.set_figure_sink([&](const Figure& figure) { events.push_back(FigureEvent(rules, figure)); });
  recognizer.set_emit_annotations(emit_annotations);
  recognizer.BeginInput("sample", 0);
  StringSource source(text);
  LineReader reader(&source);
  Line line;
  while (reader.Next(&line)) recognizer.Feed(line);
  recognizer.Finish();
  return events;
}

}  // namespace oomlens
