// What `oomlens --version` says: the release, the git revision it was built
// from, and the built-in rule set.
#ifndef OOMLENS_CLI_VERSION_H_
#define OOMLENS_CLI_VERSION_H_

#include <string>

namespace oomlens {

/// `git describe` of the source tree at build time, "unknown" outside git.
const char* GitRevision();

/// "oomlens 0.1.0 (git 8bf4f22a1b2c, rules 1a2b3c4d: 43 signatures, 37 cause rules)".
std::string VersionLine();

}  // namespace oomlens

#endif  // OOMLENS_CLI_VERSION_H_
