// Machine formats for CI systems: JSON Lines, SARIF 2.1.0, GitLab Code Quality.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/render/render_json.h"
#include "core/render/verdict.h"
#include "oomlens/render.h"

namespace oomlens {
namespace {

using ojson = nlohmann::ordered_json;

constexpr size_t kMaxSarifResults = 5000;  // well under GitHub's upload limits

// An input as a SARIF artifact URI: an absolute path as a file:// URI (a relative
// reference may not begin with '/'), a relative one as a relative reference;
// bytes outside a URI path's characters percent-encoded.
std::string Uri(const std::string& input) {
  if (input == "<stdin>") return "stdin";
  static const char kHex[] = "0123456789ABCDEF";
  std::string out = input.rfind('/', 0) == 0 ? "file://" : "";
  for (unsigned char c : input) {
    bool plain = std::isalnum(c) || std::strchr("-._~/!$&'()*+,;=:@", c) != nullptr;
    if (plain && c != 0) out += static_cast<char>(c);
    else out += std::string("%") + kHex[c >> 4] + kHex[c & 15];
  }
  return out;
}

// The help of a rule is the same for every result: what it means, where to read
// more and how to see every tip it gives (the tips themselves use each incident's figures).
ojson RuleHelp(const Diagnosis& d) {
  std::string explain = "oomlens explain " + d.best.cause;
  std::string text = d.rule_description.empty() ? "" : d.rule_description + "\n\n";
  text += "Each result's message gives the incident's figures; `" + explain +
          "` lists what oomlens checks for this cause and every change it advises.";
  std::string markdown = text;
  if (!d.docs.empty()) {
    text += "\nSee " + d.docs.front();
    markdown += "\n\nSee [" + d.docs.front() + "](" + d.docs.front() + ").";
  }
  return {{"text", text}, {"markdown", markdown}};
}

}  // namespace

void RenderJsonl(const Report& report, std::ostream& out) {
  for (const auto& incident : report.incidents) {
    ojson line;
    line["schema_version"] = 1;
    line["oomlens_version"] = Version();
    const ojson fields = IncidentJson(incident);  // items() must not outlive it
    for (const auto& [key, value] : fields.items()) line[key] = value;
    line["fingerprint"] = Fingerprint(incident);
    out << Dump(line, -1) << "\n";
  }
}

void RenderSarif(const Report& report, const FailGate& gate, std::ostream& out) {
  ojson rules = ojson::array(), results = ojson::array();
  std::vector<std::string> rule_ids;
  for (const auto& i : report.incidents) {
    const Diagnosis& d = i.diagnosis;
    std::string rule_id = d.best.rule.empty() ? "oomlens/" + d.best.cause : d.best.rule;
    if (std::find(rule_ids.begin(), rule_ids.end(), rule_id) == rule_ids.end()) {
      rule_ids.push_back(rule_id);
      ojson rule = {{"id", rule_id}};
      if (d.best.cause != rule_id) rule["name"] = d.best.cause;  // SARIF: a name equal to the id is left out
      rule["shortDescription"] = {{"text", "Out of memory: " + d.best.cause}};
      // what the rule means in general (decide sets it); each result's message has the figures
      rule["fullDescription"] = {
          {"text", d.rule_description.empty() ? "Out of memory: " + d.best.cause : d.rule_description}};
      rule["defaultConfiguration"] = {{"level", "error"}};
      if (!d.docs.empty()) rule["helpUri"] = d.docs.front();
      rule["help"] = RuleHelp(d);
      rules.push_back(rule);
    }
    if (results.size() >= kMaxSarifResults) continue;
    std::string message = (i.code.empty() ? i.kind : i.code) + ": " + d.summary;
    if (i.after.went_on) message += " (" + AftermathText(i.after, true) + ")";
    results.push_back({{"ruleId", rule_id},
                       {"level", gate.Fails(i) ? "error" : "warning"},
                       {"message", {{"text", message}}},
                       {"locations",
                        {{{"physicalLocation",
                           {{"artifactLocation", {{"uri", Uri(i.first.input)}}},
                            {"region", {{"startLine", std::max<uint64_t>(1, i.first.line)}}}}}}}},
                       {"partialFingerprints", {{"oomlens/v1", Fingerprint(i)}}},
                       {"properties",
                        {{"kind", i.kind},
                         {"occurrences", i.occurrences},
                         {"confidence", d.best.confidence},
                         {"endedJob", i.after.ended_job()},
                         {"phase", i.phase.Name()},
                         {"budget", BudgetJson(i.budget)},
                         {"formulas", d.formulas}}}});
  }
  ojson doc = {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
               {"version", "2.1.0"},
               {"runs",
                {{{"tool",
                   {{"driver",
                     {{"name", "oomlens"},
                      {"version", Version()},
                      {"informationUri", "https://openxla.org/xla/errors"},
                      {"rules", rules}}}}},
                  {"results", results}}}}};
  out << Dump(doc, 2) << "\n";
}

namespace {

// GitLab's severities: info, minor, major, critical, blocker.
const char* GitlabSeverity(const Incident& i, const FailGate& gate) {
  bool root = i.consequence_of == 0;
  if (gate.Fails(i)) return root ? "critical" : "major";
  return root ? "minor" : "info";
}

}  // namespace

void RenderGitlab(const Report& report, const FailGate& gate, std::ostream& out) {
  ojson issues = ojson::array();
  for (const auto& i : report.incidents) {
    std::string description =
        (i.code.empty() ? i.kind : i.code) + " " + i.diagnosis.best.cause + ": " + i.diagnosis.summary;
    if (i.after.went_on) description += " (" + AftermathText(i.after, true) + ")";
    // Code Climate's content.body (markdown): GitLab shows it in the issue's details
    std::string body;
    if (std::string phase = PhaseText(i.phase); !phase.empty()) body += "Phase: " + phase + "\n\n";
    if (std::string budget = BudgetText(i.budget); !budget.empty()) body += "Budget: " + budget + "\n\n";
    for (const auto& formula : i.diagnosis.formulas) body += "Formula: " + formula + "\n\n";
    issues.push_back(
        {{"description", description},
         {"check_name", i.diagnosis.best.rule.empty() ? i.diagnosis.best.cause : i.diagnosis.best.rule},
         {"fingerprint", Fingerprint(i)},
         {"severity", GitlabSeverity(i, gate)},
         {"location",
          {{"path", Uri(i.first.input)}, {"lines", {{"begin", std::max<uint64_t>(1, i.first.line)}}}}}});
    if (!body.empty()) issues.back()["content"] = {{"body", body}};
  }
  out << Dump(issues, 2) << "\n";
}

}  // namespace oomlens
