// Internal: the JSON value of one incident, shared by the JSON, JSON Lines,
// SARIF and GitLab renderers.
#ifndef OOMLENS_CORE_RENDER_RENDER_JSON_H_
#define OOMLENS_CORE_RENDER_RENDER_JSON_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "oomlens/report.h"

namespace oomlens {

nlohmann::ordered_json IncidentJson(const Incident& incident);

/// A budget's figures as the JSON's `budget` holds them: name, bytes (sizes) or
/// value (counts, shares), the text printed and where.
nlohmann::ordered_json BudgetJson(const std::vector<BudgetEntry>& budget);

/// A stable fingerprint of an incident: the same failure on a later run (other
/// file names, other line numbers, other replicas) gives the same value.
std::string Fingerprint(const Incident& incident);

/// Serialises with invalid UTF-8 replaced (logs are untrusted bytes).
std::string Dump(const nlohmann::ordered_json& j, int indent);

}  // namespace oomlens

#endif  // OOMLENS_CORE_RENDER_RENDER_JSON_H_
