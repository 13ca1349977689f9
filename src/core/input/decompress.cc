#include "core/input/decompress.h"

#include <zlib.h>
#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_d_forceIgnoreChecksum: a parameter, no symbol of the static library
#include <zstd.h>
#include <zstd_errors.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "core/input/xxhash64.h"

namespace oomlens {
namespace {

constexpr size_t kInputChunk = 64 * 1024;

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
      while (member_done_ && z_.avail_in > 0 &&
             *z_.next_in == 0) {  // zeros after the last member: as gzip -d
        ++z_.next_in;
        --z_.avail_in;
      }
      if (z_.avail_in == 0 && !eof_) continue;
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

// Where a zstd frame is in the compressed stream, and the bytes of it that are
// needed to check it: its first 5 (magic and descriptor) and its last 4 (the
// checksum, when the descriptor says there is one).
class ZstdFrameCheck {
 public:
  /// Notes bytes the decoder consumed, at absolute offset `at` of the stream.
  void Consumed(uint64_t at, const char* bytes, size_t n) {
    for (size_t k = 0; k < n && at + k < start_ + sizeof head_; ++k)
      if (at + k >= start_) head_[at + k - start_] = static_cast<unsigned char>(bytes[k]);
    for (size_t k = n > 4 ? n - 4 : 0; k < n; ++k) {
      std::memmove(tail_, tail_ + 1, 3);
      tail_[3] = static_cast<unsigned char>(bytes[k]);
    }
  }
  void Produced(const char* bytes, size_t n) { hash_.Update(bytes, n); }
  /// At the end of a frame that ends at absolute offset `end`: whether its checksum
  /// (if any) matches what it decompressed to; then starts the next frame.
  bool FrameEnds(uint64_t end) {
    uint32_t magic = Le32(head_);
    bool checked = (magic & 0xFFFFFFF0u) != 0x184D2A50u && (head_[4] & 0x04) != 0;  // not skippable, has one
    bool ok = !checked || Le32(tail_) == static_cast<uint32_t>(hash_.Digest());
    hash_.Reset();
    start_ = end;
    return ok;
  }

 private:
  static uint32_t Le32(const unsigned char* p) {
    return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
           static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
  }
  uint64_t start_ = 0;
  unsigned char head_[5] = {}, tail_[4] = {};
  Xxh64 hash_;
};

// zstd, frames of it concatenated. libzstd checks a frame's checksum by holding its
// last block back, which a corrupt frame then loses (the log's end, where the OOM
// is): the check is done here instead, after every byte is handed out.
class ZstdSource : public ByteSource {
 public:
  explicit ZstdSource(std::unique_ptr<ByteSource> in)
      : in_(std::move(in)), input_(ZSTD_DStreamInSize()), stream_(ZSTD_createDStream()) {
    ZSTD_initDStream(stream_);
    ZSTD_DCtx_setParameter(stream_, ZSTD_d_windowLogMax, kMaxZstdWindowLog);
    ZSTD_DCtx_setParameter(stream_, ZSTD_d_forceIgnoreChecksum, ZSTD_d_ignoreChecksum);
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
        chunk_at_ += in_buf_.size;
        in_buf_ = ZSTD_inBuffer{input_.data(), static_cast<size_t>(got), 0};
      }
      if (in_buf_.pos == in_buf_.size && eof_) {
        if (last_hint_ != 0) {
          *error = "zstd data ends in the middle of a frame (truncated file?)";
          return -1;
        }
        break;
      }
      size_t in_before = in_buf_.pos, out_before = out.pos;
      size_t hint = ZSTD_decompressStream(stream_, &out, &in_buf_);
      if (ZSTD_isError(hint)) {
        std::string message = ZSTD_getErrorCode(hint) == ZSTD_error_frameParameter_windowTooLarge
                                  ? "zstd window larger than " +
                                        std::to_string((1 << kMaxZstdWindowLog) >> 20) +
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
      check_.Consumed(chunk_at_ + in_before, input_.data() + in_before, in_buf_.pos - in_before);
      check_.Produced(buf + out_before, out.pos - out_before);
      if (hint == 0 && !check_.FrameEnds(chunk_at_ + in_buf_.pos)) {
        pending_error_ = "corrupt zstd data: the frame's checksum does not match what it decompressed to";
        if (out.pos > 0) break;
        *error = pending_error_;
        return -1;
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
  uint64_t chunk_at_ = 0;  // offset of input_ in the compressed stream
  ZstdFrameCheck check_;
  bool eof_ = false;
  size_t last_hint_ = 0;
  std::string pending_error_;
};

// UTF-16 text (Windows tools, PowerShell redirections) as UTF-8; a lone surrogate
// becomes U+FFFD.
class Utf16Source : public ByteSource {
 public:
  Utf16Source(std::unique_ptr<ByteSource> in, bool big_endian)
      : in_(std::move(in)), big_endian_(big_endian) {}

  long Read(char* buf, size_t n, std::string* error) override {
    while (out_.size() - out_pos_ < n && !eof_) {
      char raw[kInputChunk];
      long got = in_->Read(raw, sizeof raw, error);
      if (got < 0) return -1;
      if (got == 0) eof_ = true;
      carry_.append(raw, static_cast<size_t>(got));
      Convert();
    }
    size_t count = std::min(n, out_.size() - out_pos_);
    std::memcpy(buf, out_.data() + out_pos_, count);
    out_pos_ += count;
    if (out_pos_ == out_.size()) out_.clear(), out_pos_ = 0;
    return static_cast<long>(count);
  }

 private:
  void Convert() {
    size_t i = 0;
    for (; i + 1 < carry_.size(); i += 2) {
      auto byte = [this](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(carry_[k])); };
      uint32_t unit = big_endian_ ? (byte(i) << 8 | byte(i + 1)) : (byte(i + 1) << 8 | byte(i));
      if (unit == 0xFEFF && !started_) {  // the byte order mark
        started_ = true;
        continue;
      }
      started_ = true;
      if (unit >= 0xD800 && unit < 0xDC00) {  // a high surrogate: its pair follows
        if (i + 3 >= carry_.size() && !eof_) break;
        uint32_t low = i + 3 < carry_.size() ? (big_endian_ ? (byte(i + 2) << 8 | byte(i + 3))
                                                            : (byte(i + 3) << 8 | byte(i + 2)))
                                             : 0;
        if (low >= 0xDC00 && low < 0xE000) {
          Append(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00));
          i += 2;
          continue;
        }
        unit = 0xFFFD;
      } else if (unit >= 0xDC00 && unit < 0xE000) {
        unit = 0xFFFD;
      }
      Append(unit);
    }
    carry_.erase(0, i);
  }
  void Append(uint32_t c) {
    if (c < 0x80) {
      out_ += static_cast<char>(c);
    } else if (c < 0x800) {
      out_ += static_cast<char>(0xC0 | c >> 6);
      out_ += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out_ += static_cast<char>(0xE0 | c >> 12);
      out_ += static_cast<char>(0x80 | (c >> 6 & 0x3F));
      out_ += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out_ += static_cast<char>(0xF0 | c >> 18);
      out_ += static_cast<char>(0x80 | (c >> 12 & 0x3F));
      out_ += static_cast<char>(0x80 | (c >> 6 & 0x3F));
      out_ += static_cast<char>(0x80 | (c & 0x3F));
    }
  }

  std::unique_ptr<ByteSource> in_;
  bool big_endian_, eof_ = false, started_ = false;
  std::string carry_, out_;
  size_t out_pos_ = 0;
};

constexpr int kMaxLayers = 4;  // a .gz.gz.gz is read; deeper nesting is read as bytes

// The first 4 bytes of source (fewer at its end; a pipe may deliver them in pieces).
// A read error here recurs when the source is read on, which reports it.
std::string Peek(ByteSource* source) {
  std::string peeked, error;
  ReadUpTo(source, 4, &peeked, &error);
  return peeked;
}

// The layer that starts with these bytes: "gzip", "zstd", "utf-16le", "utf-16be", or "".
const char* LayerOf(const std::string& b) {
  auto at = [&b](size_t k) { return k < b.size() ? static_cast<unsigned char>(b[k]) : 0x100u; };
  if (at(0) == 0x1f && at(1) == 0x8b) return "gzip";
  if (b == std::string("\x28\xb5\x2f\xfd", 4)) return "zstd";
  if ((at(0) == 0xFF && at(1) == 0xFE) || (b.size() == 4 && at(0) && !at(1) && at(2) && !at(3)))
    return "utf-16le";
  if ((at(0) == 0xFE && at(1) == 0xFF) || (b.size() == 4 && !at(0) && at(1) && !at(2) && at(3)))
    return "utf-16be";
  return "";
}

}  // namespace

std::unique_ptr<ByteSource> OpenDecompressing(ByteSource* raw) {
  std::string peeked = Peek(raw);
  std::unique_ptr<ByteSource> source = std::make_unique<PrefixedSource>(peeked, raw);
  for (int layer = 0; layer < kMaxLayers; ++layer) {
    std::string name = LayerOf(peeked);
    if (name.empty()) break;
    if (name == "gzip") source = std::make_unique<GzipSource>(std::move(source));
    else if (name == "zstd") source = std::make_unique<ZstdSource>(std::move(source));
    else return std::make_unique<Utf16Source>(std::move(source), name == "utf-16be");  // text: the last layer
    peeked = Peek(source.get());  // a compressed file inside (.gz.gz), or UTF-16 text
    source = std::make_unique<PrefixedSource>(peeked, std::move(source));
  }
  return source;
}

}  // namespace oomlens
