// Compressed and UTF-16 logs: gzip, zstd and UTF-16 are recognised by their first
// bytes (not the file name), so stdin and misnamed files work too, and decoded as a
// stream, layer by layer (a .gz.gz, gzip inside zstd, UTF-16 text inside gzip).
#ifndef OOMLENS_CORE_INPUT_DECOMPRESS_H_
#define OOMLENS_CORE_INPUT_DECOMPRESS_H_

#include <memory>

#include "core/input/line_reader.h"

namespace oomlens {

/// Reads raw; returns a source of its text: decompressed and decoded to UTF-8
/// as its layers require (up to 4), raw's bytes unchanged when it has none. raw
/// must outlive the result.
std::unique_ptr<ByteSource> OpenDecompressing(ByteSource* raw);

}  // namespace oomlens

#endif  // OOMLENS_CORE_INPUT_DECOMPRESS_H_
