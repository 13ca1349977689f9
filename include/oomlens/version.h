// The version of oomlens (CMake's project version), as reports and --version show it.
#ifndef OOMLENS_VERSION_H_
#define OOMLENS_VERSION_H_

namespace oomlens {

/// "0.1.0".
const char* Version();

}  // namespace oomlens

#endif  // OOMLENS_VERSION_H_
