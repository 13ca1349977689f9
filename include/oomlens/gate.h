// Which incidents fail a CI step (--fail-on). The exit code and the severity of
// each annotation, SARIF result and GitLab issue come from the same gate, so a run
// that passes never shows an error.
#ifndef OOMLENS_GATE_H_
#define OOMLENS_GATE_H_

#include <string>
#include <vector>

#include "oomlens/report.h"

namespace oomlens {

class FailGate {
 public:
  /// spec: "oom" (every incident but one the runtime recovered from), "never", or
  /// a comma-separated list of causes, kinds and "ended" (an incident after which
  /// its input shows no more work of the job: Incident::after), any of which fails.
  explicit FailGate(const std::string& spec);
  FailGate() : FailGate("oom") {}
  bool Fails(const Incident& incident) const;
  bool Fails(const Report& report) const;
  /// The names a list gives (empty for "oom" and "never").
  const std::vector<std::string>& names() const { return names_; }

 private:
  bool never_ = false, any_ = false;
  std::vector<std::string> names_;
};

/// The name --fail-on gives incidents that ended their job.
inline constexpr char kEndedJob[] = "ended";

/// The items of a comma-separated list, empty ones left out.
std::vector<std::string> SplitList(const std::string& spec);

}  // namespace oomlens

#endif  // OOMLENS_GATE_H_
