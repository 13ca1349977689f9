// The WebAssembly build reads text the page hands it: the page opens gzip with the
// browser's DecompressionStream and decodes UTF-16 with TextDecoder before the core
// sees a byte, so here every source is read as it is (docs/web.md).
#include "core/input/decompress.h"

namespace oomlens {
namespace {

class Unchanged : public ByteSource {
 public:
  explicit Unchanged(ByteSource* raw) : raw_(raw) {}
  long Read(char* buf, size_t n, std::string* error) override { return raw_->Read(buf, n, error); }

 private:
  ByteSource* raw_;
};

}  // namespace

std::unique_ptr<ByteSource> OpenDecompressing(ByteSource* raw) { return std::make_unique<Unchanged>(raw); }

}  // namespace oomlens
