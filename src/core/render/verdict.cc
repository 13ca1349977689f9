#include "core/render/verdict.h"

#include <map>

#include "oomlens/render.h"

namespace oomlens {
namespace {

// An input that gave nothing: it could not be opened or read at all.
bool Unread(const InputSummary& in) { return !in.ok && in.bytes == 0 && in.lines == 0; }

size_t UnreadCount(const Report& report) {
  size_t n = 0;
  for (const auto& in : report.inputs) n += Unread(in);
  return n;
}

bool NothingRead(const Report& report) {
  return !report.inputs.empty() && UnreadCount(report) == report.inputs.size();
}

}  // namespace

std::string VerdictFound(const Report& report, size_t total) {
  size_t n = report.incidents.size();
  if (total < n) total = n;
  if (total == 0) return NothingRead(report) ? "no verdict" : "no OOM found";
  std::string found = Counted(total, "OOM incident", "OOM incidents");
  if (n < total) found += " (the first " + GroupedCount(n) + " shown: --max-incidents)";
  return found;
}

std::string VerdictRead(const Report& report) {
  size_t unread = UnreadCount(report);
  if (NothingRead(report)) {
    std::string what = report.inputs.size() == 1 ? report.inputs[0].name : Counted(unread, "input", "inputs");
    return ": nothing was read (" + what + " could not be read)";
  }
  uint64_t lines = 0;
  bool logs = false;
  std::map<std::string, uint64_t> records;  // inputs that were no log, by what they were
  const InputSummary* last_read = nullptr;
  for (const auto& in : report.inputs) {
    if (Unread(in)) continue;
    if (in.record.empty()) lines += in.lines, logs = true;
    else ++records[in.record];
    last_read = &in;
  }
  std::string what = logs ? Counted(lines, "line", "lines") : "";
  for (const auto& [record, n] : records)
    what += (what.empty() ? "" : ", ") + Counted(n, record.c_str(), (record + "s").c_str());
  size_t read = report.inputs.size() - unread;
  std::string where = read == 1 ? last_read->name : Counted(read, "input", "inputs");
  std::string out = " in " + where + " (" + what + ")";
  if (unread > 0) out += "; " + Counted(unread, "input", "inputs") + " could not be read";
  return out;
}

}  // namespace oomlens
