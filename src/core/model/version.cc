#include "oomlens/version.h"

namespace oomlens {

const char* Version() { return OOMLENS_VERSION; }

}  // namespace oomlens
