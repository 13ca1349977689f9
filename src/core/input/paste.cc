#include "core/input/paste.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <map>

#include "core/input/line_cleaner.h"
#include "core/model/ascii.h"

namespace oomlens {
namespace {

constexpr size_t kMinWrapWidth = 24;  // narrower blocks are lists of short values, not wrapped text
constexpr size_t kMaxGutterIndent = 6;

bool IsSpace(char c) { return c == ' ' || c == '\t'; }
bool IsWordByte(char c) { return IsAlnum(c) || c == '_' || c == '.'; }

std::string_view TrimLeft(std::string_view text) {
  while (!text.empty() && IsSpace(text.front())) text.remove_prefix(1);
  return text;
}

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() && SameBytes(text.data(), prefix.data(), prefix.size());
}

// "  12 | text", "12│text": a line-number gutter; returns its length, 0 when none.
size_t GutterLength(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && i < kMaxGutterIndent && text[i] == ' ') ++i;
  size_t digits = i;
  while (i < text.size() && IsDigit(text[i])) ++i;
  if (i == digits || i - digits > 6) return 0;
  if (i < text.size() && text[i] == ' ') ++i;
  if (i < text.size() && text[i] == '|') ++i;
  else if (StartsWith(text.substr(i), "\xE2\x94\x82")) i += 3;  // U+2502 box drawing
  else return 0;
  if (i < text.size() && text[i] == ' ') ++i;
  return i;
}

// UTF-8 continuation bytes (10xxxxxx) in text, eight bytes at a time: a byte is
// one when its top bit is set and the bit below it is not; the eight 0/1 bytes
// are summed by one multiplication.
size_t Utf8Continuations(std::string_view text) {
  size_t n = 0, i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    uint64_t x;
    std::memcpy(&x, text.data() + i, 8);
    uint64_t ones = (x & ~(x << 1) & 0x8080808080808080ull) >> 7;
    n += static_cast<size_t>((ones * 0x0101010101010101ull) >> 56);
  }
  for (; i < text.size(); ++i) n += (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80;
  return n;
}

// Characters a wrap counts: UTF-8 code points after the last '\r', ANSI escapes left out.
size_t Columns(std::string_view text) {
  if (text.empty()) return 0;
  if (const void* cr = ::memrchr(text.data(), '\r', text.size()))
    text.remove_prefix(static_cast<size_t>(static_cast<const char*>(cr) - text.data()) + 1);
  size_t columns = 0;
  if (text.find('\x1b') == std::string_view::npos)
    return text.size() - Utf8Continuations(text);  // most lines
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\x1b' && i + 1 < text.size() && text[i + 1] == '[') {  // CSI: up to its final byte
      for (i += 2; i < text.size() && !(text[i] >= '@' && text[i] <= '~'); ++i) {
      }
      continue;
    }
    columns += (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
  }
  return columns;
}

// "> > text": markdown or email quote markers; counts them and returns the rest.
std::string_view StripQuotes(std::string_view text, int* depth) {
  for (;;) {
    std::string_view rest = text;
    for (int spaces = 0; spaces < 3 && !rest.empty() && rest.front() == ' '; ++spaces) rest.remove_prefix(1);
    if (rest.empty() || rest.front() != '>') return text;
    rest.remove_prefix(1);
    if (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    ++*depth;
    text = rest;
  }
}

// "- ", "* ", "+ ", "1. ", "2) ": a markdown list item.
bool IsListItem(std::string_view text) {
  text = TrimLeft(text);
  if (text.size() >= 2 && (text[0] == '-' || text[0] == '*' || text[0] == '+') && IsSpace(text[1]))
    return true;
  size_t digits = 0;
  while (digits < text.size() && digits < 4 && IsDigit(text[digits])) ++digits;
  return digits > 0 && digits < 4 && digits + 1 < text.size() &&
         (text[digits] == '.' || text[digits] == ')') && IsSpace(text[digits + 1]);
}

// "1. text" -> "text": a numbered list item's marker goes (the cleaner takes "- "
// and "* "). An allocation listing numbers its entries ("1. Size: 2.00G"): kept.
// Returns how many leading bytes of content go.
size_t NumberedMarkerLength(std::string_view content) {
  std::string_view text = TrimLeft(content);
  if (!IsListItem(text) || !IsDigit(text.front())) return 0;
  size_t marker = text.find_first_of(".)") + 1;
  std::string_view rest = TrimLeft(text.substr(marker));
  if (StartsWith(rest, "Size:")) return 0;
  return content.size() - rest.size();
}

bool IsFence(std::string_view text) {
  text = TrimLeft(text);
  if (!StartsWith(text, "```") && !StartsWith(text, "~~~")) return false;
  for (char c : text.substr(3))
    if (!IsWordByte(c) && c != '-' && c != '+' && !IsSpace(c)) return false;
  return true;
}

// An HTML entity at text[0] ('&'): its character and length; 0 when none.
size_t Entity(std::string_view text, char* out) {
  static const struct {
    std::string_view name;
    char c;
  } kEntities[] = {{"&gt;", '>'},    {"&lt;", '<'},    {"&amp;", '&'},  {"&quot;", '"'}, {"&#39;", '\''},
                   {"&#x27;", '\''}, {"&apos;", '\''}, {"&nbsp;", ' '}, {"&#34;", '"'},  {"&#x2F;", '/'}};
  for (const auto& e : kEntities)
    if (StartsWith(text, e.name)) {
      *out = e.c;
      return e.name.size();
    }
  return 0;
}

// "**" at raw[at] opens bold markup: text follows at once and a "**" closes it on
// the line ("**12.00G**"), unlike Python's "f(**kwargs)".
bool ClosesBold(std::string_view raw, size_t at) {
  size_t start = at + 2;
  if (start >= raw.size() || IsSpace(raw[start])) return false;
  size_t close = raw.find("**", start);
  return close != std::string_view::npos && close > start && !IsSpace(raw[close - 1]);
}

// raw without backticks, '**' bold markup and HTML entities, into *out; sets *changed
// when any went. False (nothing written) when raw holds no byte markup starts with.
bool InnerText(std::string_view raw, std::string* out_text, bool* changed) {
  bool markup =
      !raw.empty() && (std::memchr(raw.data(), '`', raw.size()) || std::memchr(raw.data(), '*', raw.size()) ||
                       std::memchr(raw.data(), '&', raw.size()));
  if (!markup) return false;  // most lines: three memchr instead of a test a byte
  std::string& out = *out_text;
  out.reserve(raw.size());
  bool bold_open = false;
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c == '`') {
      *changed = true;
      continue;
    }
    if (c == '*' && i + 1 < raw.size() && raw[i + 1] == '*' && (bold_open || ClosesBold(raw, i))) {
      bold_open = !bold_open;
      *changed = true;
      ++i;
      continue;
    }
    char decoded = 0;
    if (c == '&') {
      if (size_t n = Entity(raw.substr(i), &decoded)) {
        out += decoded;
        i += n - 1;
        *changed = true;
        continue;
      }
    }
    out += c;
  }
  return true;
}

// A structured logger's record on one line (Go's zap, logrus, structlog, Docker's
// json-file): '{"' and a key. It is a record of its own, never a wrap's rest (10% of
// such lines kept the restorer on for a whole log, and one was joined into an OOM).
bool StartsJsonRecord(std::string_view text) {
  text = TrimLeft(text);
  return text.size() >= 4 && text[0] == '{' && text[1] == '"' &&
         text.find("\":", 2) != std::string_view::npos;
}

// A token ending in Error/Exception/... then ':' or the end: "RuntimeError:",
// "jax.errors.JaxRuntimeError:", or a status code "RESOURCE_EXHAUSTED:".
bool StartsException(std::string_view text) {
  size_t n = 0;
  while (n < text.size() && IsWordByte(text[n])) ++n;
  if (n == 0 || (n < text.size() && text[n] != ':')) return false;
  std::string_view token = text.substr(0, n);
  for (std::string_view suffix :
       {"Error", "Exception", "Exhausted", "Interrupt", "Exit", "Warning", "Killed"})
    if (token.size() >= suffix.size() && token.substr(token.size() - suffix.size()) == suffix) return true;
  bool status = token.size() >= 4 && token.find('_') != std::string_view::npos;
  for (char c : token) status = status && (IsUpper(c) || c == '_');
  return status;
}

bool StartsTraceback(std::string_view text) {
  if (text.empty() || (text[0] != 'T' && text[0] != 'F' && text[0] != 'D' && text[0] != 'C')) return false;
  for (std::string_view head :
       {"Traceback (", "File \"", "During handling of", "The above exception", "Caused by"})
    if (StartsWith(text, head)) return true;
  return false;
}

std::string_view FirstWord(std::string_view text) {
  text = TrimLeft(text);
  size_t n = 0;
  while (n < text.size() && !IsSpace(text[n])) ++n;
  return text.substr(0, n);
}

// A run of two or more spaces between words: a column of a table (aligned
// key/value lines, a dump's rows), which no wrap of a sentence makes.
bool HasColumnGap(std::string_view text) {
  text = TrimLeft(text);
  for (size_t gap = FindTwoSpaces(text, 0); gap != std::string_view::npos;
       gap = FindTwoSpaces(text, gap + 1)) {
    size_t end = text.find_first_not_of(' ', gap);
    if (end == std::string_view::npos) return false;
    bool after_sentence = gap > 0 && std::strchr(".:!?", text[gap - 1]);  // "fragmentation.  See"
    if (end - gap >= 3 || !after_sentence) return true;
    gap = end;
  }
  return false;
}

// "GiB", "bytes.", "M,": a unit of memory, maybe with punctuation after it.
bool IsUnit(std::string_view word) {
  for (std::string_view unit :
       {"B", "KB", "KiB", "MB", "MiB", "GB", "GiB", "TB", "TiB", "K", "M", "G", "bytes"})
    if (word.substr(0, unit.size()) == unit && (word.size() == unit.size() || !IsAlpha(word[unit.size()])))
      return true;
  return false;
}

// b reads on from a: it starts with a lower-case word, with a size ("29.49G at"),
// or with a unit after a's number ("3.95" then "GiB").
bool ReadsOn(std::string_view a, std::string_view b) {
  b = TrimLeft(b);
  if (b.empty()) return false;
  std::string_view word = FirstWord(b);
  std::string_view letters = word.substr(0, word.find_last_not_of(",.;)") + 1);
  bool prose = !letters.empty() && std::all_of(letters.begin(), letters.end(),
                                               [](char c) { return IsLower(c) || c == '\'' || c == '-'; });
  if (prose || b.front() == '(')
    return true;             // "memory", "and", "(63.58G)," but not "section_end:", "https://"
  if (IsDigit(b.front())) {  // "29.49G at ...", or a number then its unit: "85898814480 bytes."
    size_t end = word.find_last_not_of(".,;:)");
    if (end != std::string_view::npos && IsAlpha(word[end])) return true;
    return IsUnit(FirstWord(TrimLeft(b).substr(word.size())));
  }
  return !a.empty() && IsDigit(a.back()) && IsUnit(word);
}

// What is left of a log prefix cut off its message: nothing, or its level ("I", "WARNING").
bool IsLevelOrNothing(std::string_view message) {
  message = TrimLeft(message);
  return message.size() <= 8 &&
         std::all_of(message.begin(), message.end(), [](char c) { return IsUpper(c) || c == ':'; });
}

// Whether the cleaner may leave text nothing but a level, told from its last byte.
// A level left ends in an upper-case letter or ':' (the cleaner trims "` \t" after
// it); prefixes that take the whole text end as the cleaner's prefixes end: a space
// (\s), ']', ':', ')', '>' or '#', or a fence's word after its backticks. Text with a
// backtick, an ANSI escape or a carriage return (which the cleaner takes out
// first) may end in anything.
bool MayEndBare(std::string_view text) {
  if (text.empty()) return true;
  char last = text.back();
  if (IsUpper(last) || std::strchr(": \t\n\f]>#)", last)) return true;  // '\0' too: strchr finds the end
  return std::memchr(text.data(), '`', text.size()) || std::memchr(text.data(), '\x1b', text.size()) ||
         std::memchr(text.data(), '\r', text.size());
}

// A line a wrap cut inside a sentence ends in a word or a comma, not in '.', ':' or ')'.
bool EndsMidSentence(std::string_view text) {
  if (text.empty()) return false;
  char last = text.back();
  return IsAlnum(last) || last == ',' || last == '-' || last == '\'';
}

// The letters a line's first word starts with, after any marks: "offset" of
// "offset=0x1f", "Chunk" of "Chunk at", "memory" of "# memory used 7.07".
std::string_view Key(std::string_view word) {
  while (!word.empty() && (IsPunct(word.front()) || IsSpace(word.front()))) word.remove_prefix(1);
  size_t n = 0;
  while (n < word.size() && (IsAlpha(word[n]) || word[n] == '_')) ++n;
  return word.substr(0, n);
}

bool HasInnerSpace(std::string_view text) {
  text = TrimLeft(text);
  return text.find(' ') != std::string_view::npos;
}

}  // namespace

PasteRestorer::PasteRestorer(Sink sink, StartsMessage starts_message)
    : sink_(std::move(sink)), starts_message_(std::move(starts_message)) {}

void PasteRestorer::Begin() {
  Flush();
  active_ = true;
  bytes_ = lines_ = decorated_lines_ = joined_lines_ = windows_ = 0;
}

PasteRestorer::Piece PasteRestorer::Strip(std::string_view text, std::string storage) {
  Piece piece;
  storage.assign(text.data(), text.size());
  piece.printed = std::move(storage);
  text = piece.printed;  // the parts below are places in it
  if (size_t gutter = GutterLength(text)) {
    text.remove_prefix(gutter);
    piece.decorated = true;
  }
  std::string_view quoted = text;
  text = StripQuotes(text, &piece.depth);
  piece.decorated = piece.decorated || piece.depth > 0;
  std::string inner;  // as printed, trailing bytes too
  if (InnerText(text, &inner, &piece.decorated)) piece.content_part.Own(std::move(inner));
  else piece.content_part.View(piece.printed, text);
  piece.content_part.RemovePrefix(NumberedMarkerLength(piece.content()));
  while (!quoted.empty() && quoted.back() == '\r') quoted.remove_suffix(1);
  while (!text.empty() && (text.back() == '\r' || IsSpace(text.back()))) text.remove_suffix(1);
  if (text.find('\x1b') == std::string_view::npos) piece.raw_part.View(piece.printed, text);
  else piece.raw_part.Own(StripAnsi(text));
  std::string_view raw = piece.raw();
  const void* overwrite =  // a progress bar's last state is what a terminal showed
      raw.empty() ? nullptr : ::memrchr(raw.data(), '\r', raw.size());
  if (overwrite)
    piece.raw_part.RemovePrefix(static_cast<size_t>(static_cast<const char*>(overwrite) - raw.data()) + 1);
  raw = piece.raw();
  piece.columns = Columns(quoted);  // what a wrap measured: quote marks and trailing blanks too
  std::string_view key = Key(TrimLeft(raw));
  piece.key_at = static_cast<size_t>(key.data() - raw.data());
  piece.key_size = key.size();
  piece.first_word = FirstWord(raw).size();
  piece.column_gap = HasColumnGap(raw);
  piece.inner_space = HasInnerSpace(raw);
  std::string_view content = TrimLeft(piece.content());
  piece.breaks = content.empty() || IsFence(raw);  // the raw line: backticks are gone from content
  piece.item = IsListItem(text);
  piece.decorated = piece.decorated || piece.item || (piece.breaks && !content.empty());
  piece.log_prefix = StartsWithLogPrefix(content);
  piece.starts_record =
      piece.log_prefix || StartsTraceback(content) || StartsException(content) || StartsJsonRecord(content);
  return piece;
}

void PasteRestorer::Push(std::string_view text, uint64_t number, const std::string& host, bool record,
                         bool clear) {
  if (!active_) return sink_(text, number, host, {text}, false);
  bytes_ += text.size() + 1;
  ++lines_;
  if (text.size() > kMaxPastedLine) {  // no paste has such lines: pass it on, copying nothing
    EmitBlock();
    sink_(text, number, host, {text}, false);
    if (bytes_ >= kWindowBytes) EndWindowIfMachineLog();
    return;
  }
  std::string storage;
  if (!spare_.empty()) {
    storage = std::move(spare_.back());
    spare_.pop_back();
  }
  Piece piece = Strip(text, std::move(storage));
  piece.number = number;
  piece.host = host;
  piece.starts_record = piece.starts_record || record;
  if (!piece.breaks && !piece.item && starts_message_) {  // a record's too: it is no rest of a wrap
    std::string_view content = piece.content(), trimmed = TrimLeft(content);
    bool part_of_text = !piece.content_part.owned();  // markup taken out could have joined a literal
    int start = clear && part_of_text ? kNoLiteral : starts_message_(trimmed);
    if (trimmed.size() == content.size()) piece.sent_start = start;  // the text sent
    piece.start_of = std::max(start, 0);
    piece.holds_start = piece.start_of != 0;
  }
  decorated_lines_ += piece.decorated;
  Take(std::move(piece));
  if (bytes_ >= kWindowBytes) EndWindowIfMachineLog();
}

void PasteRestorer::Take(Piece&& piece) {
  if (piece.breaks) {
    EmitBlock();
    sink_("", piece.number, piece.host, {piece.printed}, false);
    return;
  }
  // A change of quote depth ends a block, except an unquoted line after quoted ones:
  // markdown's lazy continuation, which a wrap of a quoted line gives.
  bool depth_changed = !block_.empty() && block_.back().depth != piece.depth && piece.depth > 0;
  if (!block_.empty() && (depth_changed || block_.back().host != piece.host)) EmitBlock();
  block_.push_back(std::move(piece));
  if (block_.size() >= kMaxBlockLines) EmitBlock(/*keep_last=*/true);
}

const PasteRestorer::Block::KeyCount* PasteRestorer::Block::Find(std::string_view key) const {
  for (const KeyCount& k : keys)
    if (SameBytes(k.key, key)) return &k;
  return nullptr;
}

PasteRestorer::Block::KeyCount& PasteRestorer::Block::At(std::string_view key) {
  for (KeyCount& k : keys)
    if (SameBytes(k.key, key)) return k;
  keys.push_back(KeyCount{key});
  return keys.back();
}

// Whether b may continue a at all: b starts no record of its own (a log prefix,
// a traceback line, an exception, a list item, a table row, a message's start),
// a is no traceback "File" line, and they are not two lines of one shape.
bool PasteRestorer::MayContinue(const Piece& a, const Piece& b, const Block& block) {
  if (a.bare_prefix)
    return !b.item && !b.log_prefix;  // "2025-07-31 20:22:43.04: I" alone: its message follows
  if (b.item || b.starts_record || b.column_gap) return false;
  // b starts a message: it continues only a line cut mid-sentence (that line holds
  // the head of b's message), never a line that starts a message of b's kind (two
  // GPUs' OOMs one under the other are two records)
  if (b.holds_start && (b.start_of == a.start_of || !EndsMidSentence(a.raw()))) return false;
  if (StartsWith(TrimLeft(a.content()), "File \"")) return false;  // a traceback's code line follows
  if (b.first_word == 0) return false;
  const Block::KeyCount* shape = block.Find(b.key());
  bool listing = b.key().size() >= 2 && b.key() == a.key() && shape && shape->lines >= 3;
  return !listing;  // lines of one shape ("Chunk at ...", "size=..."), not a sentence
}

// The greedy-wrap test: a wrap at width cut a before b's first word.
bool PasteRestorer::Cut(const Piece& a, const Piece& b, size_t width) {
  return width >= kMinWrapWidth && a.columns <= width && a.columns + 1 + b.first_word > width;
}

// A block looks wrapped when most of the lines that may continue the one before
// them pass the greedy-wrap test, two of them at least or two lines near its
// width. In a machine log the lines are of all lengths and few pass.
void PasteRestorer::ShapeOf(const std::vector<Piece>& block, Block* out) const {
  Block& shape = *out;
  shape.keys.clear();  // keeps its room
  shape.width = 0;
  shape.rest_cuts = shape.start_cuts = 0;
  size_t any_width = 0;
  for (const auto& p : block) {
    any_width = std::max(any_width, p.columns);
    if (p.inner_space) shape.width = std::max(shape.width, p.columns);  // one word may exceed a wrap
  }
  if (shape.width == 0) shape.width = any_width;
  for (const auto& p : block) shape.At(p.key()).lines++;
  int near = 0, may = 0, cut = 0;
  for (size_t i = 0; i < block.size(); ++i) {
    const Piece& p = block[i];
    near += p.columns * 5 >= shape.width * 4 && p.columns <= shape.width;
    if (i == 0 || !MayContinue(block[i - 1], p, shape)) continue;
    bool was_cut = Cut(block[i - 1], p, shape.width);
    ++may;
    cut += was_cut;
    shape.rest_cuts += was_cut && !p.holds_start;
    shape.start_cuts += was_cut && p.holds_start;
    Block::KeyCount& by_key = shape.At(p.key());
    ++by_key.may_continue;
    by_key.cut += was_cut;
  }
  shape.wrapped = cut * 2 >= may && (near >= 2 || cut >= 2);
}

// Joined when the block looks wrapped and a wrap cut a before b; in a block that
// does not (a log wrapped where its lines were long), when the lines starting
// with b's first word were cut before nearly every time, or when a ends
// mid-sentence and b reads on from it (a lower-case word that starts no other
// line of the block, a size, a unit after a number).
bool PasteRestorer::Joins(const Piece& a, const Piece& b, const Block& block) const {
  if (!MayContinue(a, b, block)) return false;
  if (a.depth > 0 && b.depth == 0) return true;  // markdown's lazy continuation: a quoted line's wrapped rest
  if (StartSpans(a, b)) return true;
  if (!Cut(a, b, block.width)) return false;
  // Two lines that each hold a message's start are two records unless the block is
  // wrapped and some line of it, cut before, is a wrap's rest that holds no start:
  // long records one under the other pass the wrap test too (the adjacent-samples
  // property test; attack review W2).
  if (a.holds_start && b.holds_start) return block.wrapped && block.rest_cuts > 0;
  // Lines holding a start, cut before again and again where no other line ever is,
  // are records of a log of one width ("Memstats: ..." under each glog line), not
  // a wrap's rests; one such line alone may be ("program\n'jit_step': Attempting").
  if (b.holds_start && block.rest_cuts == 0 && block.start_cuts >= 2) return false;
  if (block.wrapped) return true;
  std::string_view key = b.key();
  const Block::KeyCount* seen = block.Find(key);
  bool always_cut =
      !key.empty() && seen && seen->may_continue >= 2 && seen->cut * 5 >= seen->may_continue * 4;
  if (always_cut) return true;  // "freed_by_count=0. ..." after each long warning: its wrapped tail
  bool template_word = !key.empty() && seen && seen->lines >= 3;  // "step 5: ..." lines
  return EndsMidSentence(a.raw()) && !template_word && ReadsOn(a.raw(), b.raw());
}

// A message's start that neither line holds alone spans the two: "... Out of
// memory: Killed process" then "7899 (python) total-vm:...".
bool PasteRestorer::StartSpans(const Piece& a, const Piece& b) const {
  // A record's line that holds a start (an exception) takes a rest that holds none and
  // reads on in it ("... with shape (50000, 3," then "224, 224) and data type float32").
  bool a_alone = a.holds_start && !a.starts_record;
  if (!starts_message_ || a_alone || b.holds_start || !EndsMidSentence(a.raw())) return false;
  std::string both(TrimLeft(a.content()));
  both += ' ';
  both += TrimLeft(b.content());
  return starts_message_(both) > 0;
}

// A log prefix cut off its message ("2025-07-31 20:22:43.04: I" alone) matters
// only before a line that may continue it (MayContinue): cleaned there, not for
// every record of a log (a third of the restorer's cost on a pasted log).
void PasteRestorer::MarkBarePrefixes(std::vector<Piece>* block) {
  for (size_t i = 0; i + 1 < block->size(); ++i) {
    Piece& a = (*block)[i];
    const Piece& b = (*block)[i + 1];
    if (a.log_prefix && !b.item && !b.log_prefix) a.bare_prefix = IsBarePrefix(a.content(), &cleaner_);
  }
}

bool PasteRestorer::IsBarePrefix(std::string_view content, LineCleaner* cleaner) {
  content = TrimLeft(content);
  return MayEndBare(content) && IsLevelOrNothing(cleaner->Clean(content).message);
}

// keep_last: the block is at its cap, not at a break, and its last logical line may
// go on in the lines still to come (a wrapped message whose first line is the
// cap's last): those lines start the next block instead of being sent cut. A tail
// of half the cap or more is sent as it is, so memory stays bounded.
void PasteRestorer::EmitBlock(bool keep_last) {
  std::vector<Piece> block;
  block.swap(block_);  // the sink may call back into Flush
  if (block.empty()) return;
  MarkBarePrefixes(&block);
  const Block& shape = shape_;
  ShapeOf(block, &shape_);
  // The lines joined from block[first] on; a line left alone is sent as it is.
  std::string& logical = logical_;
  size_t first = 0, joined = 0;
  auto text = [&]() -> std::string_view { return joined > 0 ? logical : block[first].content(); };
  for (size_t i = 1; i < block.size(); ++i) {
    if (text().size() < kMaxLogicalBytes && Joins(block[i - 1], block[i], shape)) {
      if (joined == 0) logical = block[first].content();
      while (!logical.empty() && (logical.back() == '\r' || IsSpace(logical.back()))) logical.pop_back();
      logical += ' ';
      logical += TrimLeft(block[i].content());
      ++joined;
      continue;
    }
    Send(text(), block, first, i);
    joined_lines_ += joined;
    first = i;
    joined = 0;
  }
  if (keep_last && first > 0 && (block.size() - first) * 2 < kMaxBlockLines) {
    Recycle(&block, 0, first);
    block.erase(block.begin(), block.begin() + static_cast<std::ptrdiff_t>(first));  // keeps its room
    block_.swap(block);
    return;
  }
  Send(text(), block, first, block.size());
  joined_lines_ += joined;
  Recycle(&block, 0, block.size());
  if (block_.empty()) {  // the next block reuses this one's room: no Piece moved as it grows
    block.clear();
    block_.swap(block);
  }
}

void PasteRestorer::Send(std::string_view logical, const std::vector<Piece>& block, size_t first,
                         size_t end) {
  physical_.clear();
  for (size_t i = first; i < end; ++i) physical_.push_back(block[i].printed);
  const Piece& alone = block[first];
  bool as_tested = end == first + 1 && logical.size() == alone.content().size();
  sink_(logical, alone.number, alone.host, physical_, as_tested ? alone.sent_start : kNotTested);
}

// The printed buffers of block[first, end), sent: spare room for the lines to come
// (short ones only: at most kMaxBlockLines of 4 KiB are kept besides the block).
void PasteRestorer::Recycle(std::vector<Piece>* block, size_t first, size_t end) {
  constexpr size_t kSpareBytes = 4096;
  for (size_t i = first; i < end && spare_.size() < kMaxBlockLines; ++i)
    if ((*block)[i].printed.capacity() <= kSpareBytes) spare_.push_back(std::move((*block)[i].printed));
}

void PasteRestorer::Flush() { EmitBlock(); }

// Each window is judged on its own lines. The first tells a paste by a trace of
// decoration (a log fenced in a bug report: 1% of its lines); past it, a window must
// look pasted outright (10% decorated) or the restorer turns off, so a machine log
// with a few list items or backticks among its lines (attack review R2: 2% of them)
// leaves the restorer's cost behind after its second window instead of never.
void PasteRestorer::EndWindowIfMachineLog() {
  uint64_t decorated_share = windows_ == 0 ? 100 : 10;  // one line in 100, then one in 10
  bool pasted = decorated_lines_ * decorated_share >= lines_ || joined_lines_ * 20 >= lines_;
  ++windows_;
  bytes_ = lines_ = decorated_lines_ = joined_lines_ = 0;
  if (!active_ || pasted) return;  // or 5% joined: a paste, keep on
  Flush();
  active_ = false;
}

}  // namespace oomlens
