#include "core/render/verdict.h"

#include <algorithm>
#include <map>

#include "core/model/fact_values.h"
#include "oomlens/render.h"
#include "oomlens/size.h"

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

// "45s", "12m 5s", "2h 13m", "3d 4h".
std::string Elapsed(double seconds) {
  auto s = static_cast<uint64_t>(seconds + 0.5);
  auto part = [](uint64_t n, const char* unit) { return std::to_string(n) + unit; };
  if (s < 60) return part(s, "s");
  if (s < 3600) return part(s / 60, "m") + (s % 60 ? " " + part(s % 60, "s") : "");
  if (s < 86400) return part(s / 3600, "h") + (s / 60 % 60 ? " " + part(s / 60 % 60, "m") : "");
  return part(s / 86400, "d") + (s / 3600 % 24 ? " " + part(s / 3600 % 24, "h") : "");
}

}  // namespace

bool AnyWentOn(const Report& report) {
  for (const auto& i : report.incidents)
    if (i.after.went_on) return true;
  return false;
}

std::string AftermathText(const Aftermath& after, bool any_went_on) {
  if (!after.went_on && !any_went_on) return "";
  if (!after.went_on && after.work == 0) return "ended the job: no work after it";
  if (!after.went_on)  // too little work to show the job went on (history.cc: kMinWorkToGoOn)
    return "ended the job: only " + Counted(after.work, "line", "lines") +
           " of work after it, which may be another process's";
  uint64_t compiles = after.work - after.steps;
  std::string work;
  if (after.steps) work = Counted(after.steps, "step", "steps");
  if (compiles) work += (work.empty() ? "" : ", ") + Counted(compiles, "compile", "compiles");
  if (work.empty()) work = "work";
  std::string text = "the job went on after this: " + work + " over " + Counted(after.lines, "line", "lines");
  if (after.seconds >= 0) text += " (" + Elapsed(after.seconds) + ")";
  return text;
}

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

bool BudgetPart(const std::vector<BudgetEntry>& budget, const std::string& name) {
  static const char* const kParts[] = {
      "weights_bytes",    "non_torch_bytes",  "activation_peak_bytes", "kv_cache_bytes",
      "kv_cache_k_bytes", "kv_cache_v_bytes", "generated_code_bytes",  "arguments_bytes",
      "output_bytes",     "temp_bytes"};
  // SGLang prints the KV cache's share and then its two halves: the halves are the parts.
  if (name == "kv_cache_bytes")
    return std::none_of(budget.begin(), budget.end(),
                        [](const BudgetEntry& b) { return b.name == "kv_cache_k_bytes"; });
  for (const char* part : kParts) {
    if (name == part) return true;
  }
  return false;
}

std::string BudgetText(const std::vector<BudgetEntry>& budget) {
  if (budget.empty()) return "";
  std::string text;
  uint64_t first = budget.front().source.line, last = first;
  for (const auto& entry : budget) {
    const FactValue& v = entry.value;
    text += (text.empty() ? "" : " · ") + FactLabel(entry.name) + " " +
            (v.type == FactType::kSize ? FormatSize(v.integer) : v.text);
    first = std::min(first, entry.source.line);
    last = std::max(last, entry.source.line);
  }
  std::string lines = std::to_string(first) + (last > first ? "-" + std::to_string(last) : "");
  return text + " (" + budget.front().source.input + ":" + lines + ")";
}

std::string HeadroomText(const std::vector<BudgetEntry>& budget) {
  const FactValue *capacity = nullptr, *usable = nullptr, *share = nullptr, *tokens = nullptr,
                  *left = nullptr;
  int64_t parts = 0;
  bool kv_cache = false;  // the ledger names what takes the rest: its parts are all there
  for (const auto& b : budget) {
    kv_cache = kv_cache || b.name == "kv_cache_bytes" || b.name == "kv_cache_k_bytes";
    if (b.name == "capacity_bytes") capacity = &b.value;
    if (b.name == "usable_bytes") usable = &b.value;
    if (b.name == "gpu_memory_utilization") share = &b.value;
    if (b.name == "kv_cache_tokens") tokens = &b.value;
    if (b.name == "free_after_kv_cache_bytes") left = &b.value;
    if (BudgetPart(budget, b.name) && b.value.type == FactType::kSize) AddSaturating(b.value.integer, &parts);
  }
  std::vector<std::string> said;
  if (capacity && usable && capacity->integer >= usable->integer) {
    said.push_back(FormatSize(capacity->integer - usable->integer) + " of the " +
                   FormatSize(capacity->integer) + " device is outside the engine's share" +
                   (share ? " (gpu_memory_utilization " + share->text + ")" : ""));
  }
  if (usable && parts > 0 && kv_cache) {
    said.push_back(parts >= usable->integer
                       ? "its parts fill the " + FormatSize(usable->integer) + " share"
                       : FormatSize(usable->integer - parts) + " of the " + FormatSize(usable->integer) +
                             " share is planned for nothing the log names");
  }
  if (tokens) said.push_back("the KV cache holds " + tokens->text + " tokens");
  if (left) said.push_back(FormatSize(left->integer) + " was free after it, for activations and CUDA graphs");
  std::string text;
  for (const auto& s : said) text += (text.empty() ? "" : "; ") + s;
  return text;
}

std::string PhaseText(const Phase& phase) {
  if (phase.Name() == "unknown") return "";
  std::string text = phase.name + ": ";
  if (phase.where.line > 0) text += LocationText(phase.where) + ": ";
  return text + phase.evidence;
}

}  // namespace oomlens
