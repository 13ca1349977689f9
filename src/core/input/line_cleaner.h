// Turns a raw log line into the message text plus its context.
//
// Handles CR/LF, '\r' progress-bar overwrites, ANSI escapes, log prefixes
// (glog/absl, timestamps, Python logging, host tags such as "[worker-3]",
// "worker-3: ", "(EngineCore_DP0 pid=344)", "[rank1]:") and the wrappers of
// pasted text (markdown quotes, fences, bullets, '#' comments, backticks).
#ifndef OOMLENS_CORE_INPUT_LINE_CLEANER_H_
#define OOMLENS_CORE_INPUT_LINE_CLEANER_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace oomlens {

/// What the prefixes of a line said.
struct LineContext {
  std::string host;       ///< from a host/worker tag, empty when none
  std::string rank;       ///< from "[rank1]:", empty when none
  std::string level;      ///< I, W, E, F, INFO, ERROR ... when printed
  std::string timestamp;  ///< as printed
};

/// The cleaned line. message and display point into the cleaner or the raw line
/// and stay valid until the next Clean() call.
struct CleanLine {
  std::string_view display;  ///< the line without CR/ANSI/overwritten text (for excerpts)
  std::string_view message;  ///< display without prefixes and paste wrappers
  LineContext context;
};

/// Cleans lines. Compiles its patterns once; not thread-safe (keeps a scratch buffer).
class LineCleaner {
 public:
  LineCleaner();
  ~LineCleaner();
  LineCleaner(const LineCleaner&) = delete;
  LineCleaner& operator=(const LineCleaner&) = delete;

  /// Cleans raw. The result is valid until the next call. Its host is
  /// host_when_none when no prefix names one (the stream's, from its envelope).
  const CleanLine& Clean(std::string_view raw, std::string_view host_when_none = {});

 private:
  struct Patterns;
  friend bool StartsWithPrefix(std::string_view text);
  friend bool StartsWithLogPrefix(std::string_view text);
  std::string scratch_;
  std::vector<int> hits_;  // prefixes that may match, reused from line to line
  CleanLine result_;
};

/// Seconds since the start of the year of a timestamp the cleaner captured
/// (glog, absl or ISO); nullopt when it cannot be read.
std::optional<double> TimestampSeconds(std::string_view timestamp);

/// The same timestamp as ISO 8601 text to the second, "2026-11-30T09:14:11", or
/// "--11-30T12:00:00" when it names no year (glog); "" when it cannot be read.
/// Texts of one form sort in time order.
std::string TimestampText(std::string_view timestamp);

/// Length of the glog/absl prefix ("E1130 12:00:00.123456  1234 file.cc:12] ") at
/// the start of text, 0 when there is none; sets the level and the timestamp.
/// The cleaner's first prefix, read without a regex.
size_t GlogPrefix(std::string_view text, std::string_view* level, std::string_view* timestamp);

/// Length of an ISO timestamp prefix ("2026-11-30 09:14:11,402 ", "[2026-11-30T09:14:11Z]: ")
/// at the start of text, 0 when there is none; sets the timestamp. kPrefixes[1] by hand.
size_t IsoTimestampPrefix(std::string_view text, std::string_view* timestamp);

/// Length of Python logging's "- name - LEVEL - " at the start of text, 0 when there
/// is none; sets the level. kPrefixes[4] by hand, for texts that start with '-'.
size_t DashLoggingPrefix(std::string_view text, std::string_view* level);

/// False only when none of the cleaner's prefixes but glog's (which GlogPrefix
/// reads, and is asked first) can start text: a test on its first word that
/// spares most message lines the prefix regexes.
bool MayStartWithPrefix(std::string_view text);
/// True when one of the cleaner's prefixes matches at the start of text (the
/// regexes themselves; MayStartWithPrefix is checked against it).
bool StartsWithPrefix(std::string_view text);

/// True when a log record's prefix (glog, a timestamp, a level, a host or rank tag)
/// starts text; paste wrappers (quotes, bullets, backticks) do not count.
bool StartsWithLogPrefix(std::string_view text);

/// Removes ANSI escape sequences (CSI, OSC and two-byte escapes) from text.
std::string StripAnsi(std::string_view text);

}  // namespace oomlens

#endif  // OOMLENS_CORE_INPUT_LINE_CLEANER_H_
