// "did you mean ...?" for a mistyped name: a format, a colour mode, a cause, a flag.
#ifndef OOMLENS_CLI_DID_YOU_MEAN_H_
#define OOMLENS_CLI_DID_YOU_MEAN_H_

#include <string>
#include <vector>

namespace oomlens {

/// The name closest to word (ignoring case) when it is close enough to be a typo of
/// it: at most a third of its letters wrong (one for a short word). Empty otherwise.
std::string ClosestName(const std::string& word, const std::vector<std::string>& names);

/// " (did you mean 'json'?)" for ClosestName, or "".
std::string DidYouMean(const std::string& word, const std::vector<std::string>& names);

}  // namespace oomlens

#endif  // OOMLENS_CLI_DID_YOU_MEAN_H_
