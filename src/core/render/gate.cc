#include "oomlens/gate.h"

#include <algorithm>
#include <sstream>

namespace oomlens {
namespace {

// The cause of an OOM the runtime recovered from (rules/causes): reported, but
// the job went on, so it fails nothing unless --fail-on names it.
constexpr char kRecovered[] = "recovered";

}  // namespace

std::vector<std::string> SplitList(const std::string& spec) {
  std::vector<std::string> out;
  std::stringstream in(spec);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

FailGate::FailGate(const std::string& spec) {
  never_ = spec == "never";
  any_ = spec == "oom";
  if (!never_ && !any_) names_ = SplitList(spec);
}

bool FailGate::Fails(const Incident& incident) const {
  if (never_) return false;
  if (any_) return incident.diagnosis.best.cause != kRecovered;
  return std::any_of(names_.begin(), names_.end(), [&incident](const std::string& name) {
    if (name == kEndedJob) return incident.after.ended_job() && incident.diagnosis.best.cause != kRecovered;
    return name == incident.diagnosis.best.cause || name == incident.kind;
  });
}

bool FailGate::Fails(const Report& report) const {
  return std::any_of(report.incidents.begin(), report.incidents.end(),
                     [this](const Incident& incident) { return Fails(incident); });
}

}  // namespace oomlens
