// Compressed logs: gzip and zstd are recognised by their magic bytes (not the
// file name), so stdin and misnamed files work too, and decompressed as a stream.
#ifndef OOMLENS_CORE_DECOMPRESS_H_
#define OOMLENS_CORE_DECOMPRESS_H_

#include <memory>
#include <string>

#include "core/input/line_reader.h"

namespace oomlens {

/// Reads raw; returns a source of the decompressed bytes when raw starts with a
/// gzip or zstd frame, otherwise of raw's bytes unchanged. *format is set to
/// "gzip", "zstd" or "". raw must outlive the result.
std::unique_ptr<ByteSource> OpenDecompressing(ByteSource* raw, std::string* format);

}  // namespace oomlens

#endif  // OOMLENS_CORE_DECOMPRESS_H_
