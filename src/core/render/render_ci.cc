// Human formats for CI systems: Markdown step summaries and GitHub annotations.
#include <cstring>
#include <sstream>

#include "core/render/markdown_cell.h"
#include "core/render/verdict.h"
#include "oomlens/render.h"
#include "oomlens/size.h"

namespace oomlens {

std::string MarkdownCell(const std::string& text) {
  std::string out;
  for (char c : Printable(text, /*keep_line_breaks=*/true)) {
    if (c == '|') out += "\\|";
    else if (c == '\n' || c == '\r') out += ' ';
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else if (std::strchr("\\`*_[]!~", c)) out += std::string("\\") + c;  // no link, image, code or emphasis
    else out += c;
  }
  return out;
}

namespace {

constexpr size_t kMaxAnnotations = 10;        // GitHub shows at most 10 errors per step
constexpr size_t kMaxAnnotationBytes = 4000;  // and truncates long messages

// Log lines inside a code fence: a fence in the log must not close ours.
std::string Fenced(const std::string& line) {
  std::string out = Printable(line);
  for (size_t pos = out.find("```"); pos != std::string::npos; pos = out.find("```", pos))
    out.replace(pos, 3, "'''");
  return out;
}

std::string KeyNumbers(const Incident& i) {
  std::string out;
  for (const char* name : {"requested_bytes", "free_bytes", "used_bytes", "limit_bytes", "capacity_bytes"}) {
    auto it = i.facts.find(name);
    if (it == i.facts.end()) continue;
    std::string label(name, std::string(name).size() - 6);
    out += (out.empty() ? "" : ", ") + label + " " + FormatSize(it->second.integer);
  }
  return out;
}

std::string Details(const Incident& i, size_t number) {
  std::ostringstream out;
  out << "<details><summary>[" << number << "] " << MarkdownCell(i.title)
      << ": evidence, advice, excerpt</summary>\n\n";
  if (i.after.went_on) out << "*" << MarkdownCell(AftermathText(i.after, true)) << "*\n\n";
  if (std::string phase = PhaseText(i.phase); !phase.empty())
    out << "Phase: " << MarkdownCell(phase) << "\n\n";
  if (std::string budget = BudgetText(i.budget); !budget.empty())
    out << "Budget: " << MarkdownCell(budget) << "\n\n";
  for (const auto& formula : i.diagnosis.formulas) out << "Formula: " << MarkdownCell(formula) << "\n\n";
  for (const auto& e : i.diagnosis.evidence) out << "- " << MarkdownCell(e) << "\n";
  if (!i.diagnosis.advice.empty()) out << "\n**Advice**\n\n";
  for (size_t k = 0; k < i.diagnosis.advice.size(); ++k)
    out << k + 1 << ". " << MarkdownCell(i.diagnosis.advice[k]) << "\n";
  if (!i.diagnosis.fit.empty()) out << "\n**Would fit:** " << MarkdownCell(i.diagnosis.fit) << "\n";
  if (!i.diagnosis.also_consider.empty()) out << "\n**Also consider**\n\n";
  for (const auto& c : i.diagnosis.also_consider)
    out << "- " << MarkdownCell(c.advice) << " (" << MarkdownCell(c.why) << ")\n";
  for (const auto& doc : i.diagnosis.docs) out << "\nSee " << doc << "\n";
  out << "\n```text\n";
  for (size_t k = 0; k < i.excerpt.size() && k < 12; ++k) out << Fenced(i.excerpt[k].substr(0, 500)) << "\n";
  out << "```\n</details>\n\n";
  return out.str();
}

// Escapes a workflow command's message (%, CR, LF) or property (also : and ,).
std::string Escape(const std::string& raw, bool property) {
  std::string text = Printable(raw, /*keep_line_breaks=*/true);
  std::string out;
  for (char c : text) {
    if (c == '%') out += "%25";
    else if (c == '\r') out += "%0D";
    else if (c == '\n') out += "%0A";
    else if (property && c == ':') out += "%3A";
    else if (property && c == ',') out += "%2C";
    else out += c;
  }
  return out;
}

// An error when it fails the step (the gate), else a warning.
std::string Annotation(bool fails, const std::string& title, const Location& where,
                       const std::string& message) {
  std::string file = where.input == "<stdin>" ? "" : ",file=" + Escape(where.input, true);
  std::string line = where.line > 0 ? ",line=" + std::to_string(where.line) : "";
  std::string body = Escape(message.substr(0, kMaxAnnotationBytes), false);
  return std::string(fails ? "::error" : "::warning") + " title=" + Escape(title, true) + file + line +
         "::" + body + "\n";
}

}  // namespace

void RenderMarkdown(const Report& report, std::ostream& out, size_t max_bytes, size_t incidents_total) {
  std::ostringstream head;
  size_t n = report.incidents.size();
  head << "## oomlens: " << MarkdownCell(VerdictFound(report, incidents_total)) << "\n\n";
  if (n > 0) {
    head << "| # | failure | cause | summary | numbers | seen |\n|---|---|---|---|---|---|\n";
  }
  std::string text = head.str(), details;
  size_t shown = 0;
  for (size_t k = 0; k < n; ++k) {  // the table first: rows win over details
    const Incident& i = report.incidents[k];
    std::string cause =
        i.consequence_of ? "follows [" + std::to_string(i.consequence_of) + "]" : i.diagnosis.best.cause;
    if (i.after.went_on) cause += " (survived: the job went on)";
    std::string row = "| " + std::to_string(k + 1) + " | " +
                      MarkdownCell((i.code.empty() ? i.kind : i.code) + " " + i.title) + " | " +
                      MarkdownCell(cause) + " | " + MarkdownCell(i.diagnosis.summary.substr(0, 600)) + " | " +
                      MarkdownCell(KeyNumbers(i)) + " | " + std::to_string(i.occurrences) + "x, first " +
                      MarkdownCell(LocationText(i.first)) + " |\n";
    if (text.size() + row.size() + 200 > max_bytes) break;
    text += row;
    ++shown;
  }
  for (size_t k = 0; k < shown; ++k) {  // then details, while they fit
    std::string block = Details(report.incidents[k], k + 1);
    if (text.size() + details.size() + block.size() + 200 > max_bytes) break;
    details += block;
  }
  if (shown < n) text += "\n" + std::to_string(n - shown) + " more incidents not shown (size limit).\n";
  out << text << (details.empty() ? "" : "\n" + details);
}

void RenderGithub(const Report& report, const FailGate& gate, std::ostream& out) {
  size_t n = report.incidents.size();
  size_t individual = n <= kMaxAnnotations ? n : kMaxAnnotations - 1;
  for (size_t k = 0; k < individual; ++k) {
    const Incident& i = report.incidents[k];
    std::string title = "OOM: " + (i.code.empty() ? i.kind : i.code) + " " + i.diagnosis.best.cause;
    std::string message = i.diagnosis.summary;
    if (!i.diagnosis.advice.empty()) message += "\nFirst step: " + i.diagnosis.advice.front();
    if (i.after.went_on) message += "\n" + AftermathText(i.after, true);
    if (std::string phase = PhaseText(i.phase); !phase.empty()) message += "\nPhase: " + phase;
    if (std::string budget = BudgetText(i.budget); !budget.empty()) message += "\nBudget: " + budget;
    for (const auto& formula : i.diagnosis.formulas) message += "\nFormula: " + formula;
    out << Annotation(gate.Fails(i), title, i.first, message);
  }
  if (individual == n) return;
  std::string rest = std::to_string(n - individual) + " more OOM incidents:";
  bool rest_fails = false;
  for (size_t k = individual; k < n; ++k) {
    const Incident& i = report.incidents[k];
    rest_fails = rest_fails || gate.Fails(i);
    rest += "\n" + LocationText(i.first) + " " + (i.code.empty() ? i.kind : i.code) + " " +
            i.diagnosis.best.cause;
  }
  out << Annotation(rest_fails, "OOM: " + std::to_string(n - individual) + " more incidents",
                    report.incidents[individual].first, rest);
}

}  // namespace oomlens
