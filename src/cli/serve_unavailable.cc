// `oomlens serve` in a build without cpp-httplib (-DOOMLENS_STATIC=ON: Debian
// ships cpp-httplib only as a shared library, so a static binary leaves it out).
#include "cli/serve.h"

namespace oomlens {

int RunServe(const Options&, const ServeOptions&, std::ostream&, std::ostream& err, const Console&) {
  err << "oomlens: error: serve: this oomlens was built without the web server (a static build) "
         "(help: use the Debian package or a regular build for 'serve'; everything else works here)\n";
  return kExitError;
}

}  // namespace oomlens
