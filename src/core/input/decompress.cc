#include "core/input/decompress.h"

#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include <cstring>
#include <vector>

namespace oomlens {
namespace {

constexpr size_t kInputChunk = 64 * 1024;

// Hands out the bytes read while sniffing the format before reading on.
class PeekedSource : public ByteSource {
 public:
  PeekedSource(ByteSource* raw, std::string peeked) : raw_(raw), peeked_(std::move(peeked)) {}
  long Read(char* buf, size_t n, std::string* error) override {
    if (pos_ < peeked_.size()) {
      size_t count = std::min(n, peeked_.size() - pos_);
      std::memcpy(buf, peeked_.data() + pos_, count);
      pos_ += count;
      return static_cast<long>(count);
    }
    return raw_->Read(buf, n, error);
  }

 private:
  ByteSource* raw_;
  std::string peeked_;
  size_t pos_ = 0;
};

// gzip, including files of several concatenated members.
class GzipSource : public ByteSource {
 public:
  explicit GzipSource(std::unique_ptr<ByteSource> in) : in_(std::move(in)), input_(kInputChunk) {
    std::memset(&z_, 0, sizeof z_);
    ok_ = inflateInit2(&z_, 15 + 32) == Z_OK;
  }
  ~GzipSource() override { inflateEnd(&z_); }

  long Read(char* buf, size_t n, std::string* error) override {
    if (!ok_) {
      *error = "cannot initialise zlib";
      return -1;
    }
    if (!pending_error_.empty()) {  // reported after the bytes inflated before it
      *error = pending_error_;
      return -1;
    }
    z_.next_out = reinterpret_cast<Bytef*>(buf);
    z_.avail_out = static_cast<uInt>(n);
    while (z_.avail_out == n) {
      if (z_.avail_in == 0 && !eof_) {
        long got = in_->Read(input_.data(), input_.size(), error);
        if (got < 0) return -1;
        if (got == 0) eof_ = true;
        z_.next_in = reinterpret_cast<Bytef*>(input_.data());
        z_.avail_in = static_cast<uInt>(got);
      }
      if (z_.avail_in == 0 && eof_) {
        if (!member_done_) {
          *error = "gzip data ends in the middle of a stream (truncated file?)";
          return -1;
        }
        break;
      }
      int rc = inflate(&z_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        member_done_ = true;
        inflateReset(&z_);  // another member may follow
      } else if (rc == Z_OK || rc == Z_BUF_ERROR) {
        if (z_.avail_out != n || rc == Z_OK) member_done_ = false;
      } else {
        std::string message = std::string("corrupt gzip data: ") + (z_.msg ? z_.msg : "inflate failed");
        if (z_.avail_out == n) {
          *error = message;
          return -1;
        }
        pending_error_ = message;  // hand on what was inflated (often the log's end, where the OOM is)
        break;
      }
    }
    return static_cast<long>(n - z_.avail_out);
  }

 private:
  std::unique_ptr<ByteSource> in_;
  std::vector<char> input_;
  z_stream z_;
  bool ok_ = false, eof_ = false, member_done_ = false;
  std::string pending_error_;
};

// The largest zstd window read: 8 MiB (zstd's default levels use at most this; a
// frame made with --long=27 would take 128 MiB more per input, 2 GB at -j 16).
constexpr int kMaxZstdWindowLog = 23;

class ZstdSource : public ByteSource {
 public:
  explicit ZstdSource(std::unique_ptr<ByteSource> in)
      : in_(std::move(in)), input_(ZSTD_DStreamInSize()), stream_(ZSTD_createDStream()) {
    ZSTD_initDStream(stream_);
    ZSTD_DCtx_setParameter(stream_, ZSTD_d_windowLogMax, kMaxZstdWindowLog);
  }
  ~ZstdSource() override { ZSTD_freeDStream(stream_); }

  long Read(char* buf, size_t n, std::string* error) override {
    if (!pending_error_.empty()) {  // reported after the bytes decompressed before it
      *error = pending_error_;
      return -1;
    }
    ZSTD_outBuffer out{buf, n, 0};
    while (out.pos == 0) {
      if (in_buf_.pos == in_buf_.size && !eof_) {
        long got = in_->Read(input_.data(), input_.size(), error);
        if (got < 0) return -1;
        if (got == 0) eof_ = true;
        in_buf_ = ZSTD_inBuffer{input_.data(), static_cast<size_t>(got), 0};
      }
      if (in_buf_.pos == in_buf_.size && eof_) {
        if (last_hint_ != 0) {
          *error = "zstd data ends in the middle of a frame (truncated file?)";
          return -1;
        }
        break;
      }
      size_t hint = ZSTD_decompressStream(stream_, &out, &in_buf_);
      if (ZSTD_isError(hint)) {
        std::string message = ZSTD_getErrorCode(hint) == ZSTD_error_frameParameter_windowTooLarge
                                  ? "zstd window larger than " + std::to_string((1 << kMaxZstdWindowLog) >> 20) +
                                        " MiB (made with --long?); oomlens keeps its memory bounded: "
                                        "pipe it in with 'zstd -dc --long=31 FILE | oomlens'"
                                  : std::string("corrupt zstd data: ") + ZSTD_getErrorName(hint);
        if (out.pos == 0) {
          *error = message;
          return -1;
        }
        pending_error_ = message;
        break;
      }
      last_hint_ = hint;
    }
    return static_cast<long>(out.pos);
  }

 private:
  std::unique_ptr<ByteSource> in_;
  std::vector<char> input_;
  ZSTD_DStream* stream_;
  ZSTD_inBuffer in_buf_{nullptr, 0, 0};
  bool eof_ = false;
  size_t last_hint_ = 0;
  std::string pending_error_;
};

}  // namespace

std::unique_ptr<ByteSource> OpenDecompressing(ByteSource* raw, std::string* format) {
  std::string peeked(4, '\0');
  size_t have = 0;
  std::string error;
  while (have < peeked.size()) {  // a pipe may deliver the magic in pieces
    long got = raw->Read(&peeked[have], peeked.size() - have, &error);
    if (got <= 0) break;
    have += static_cast<size_t>(got);
  }
  peeked.resize(have);
  auto source = std::make_unique<PeekedSource>(raw, peeked);
  format->clear();
  if (have >= 2 && static_cast<unsigned char>(peeked[0]) == 0x1f && static_cast<unsigned char>(peeked[1]) == 0x8b) {
    *format = "gzip";
    return std::make_unique<GzipSource>(std::move(source));
  }
  if (have == 4 && peeked == std::string("\x28\xb5\x2f\xfd", 4)) {
    *format = "zstd";
    return std::make_unique<ZstdSource>(std::move(source));
  }
  return source;
}

}  // namespace oomlens
