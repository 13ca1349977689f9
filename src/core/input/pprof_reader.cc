#include "core/input/pprof_reader.h"

#include <array>

namespace oomlens {
namespace {

enum WireType { kVarint = 0, kFixed64 = 1, kLength = 2, kFixed32 = 5 };

// One message's bytes, read field by field; offsets are from the start of the profile.
class Wire {
 public:
  Wire(std::string_view data, uint64_t base, uint64_t* fail_at, std::string* error)
      : data_(data), base_(base), fail_at_(fail_at), error_(error) {}

  bool AtEnd() const { return at_ >= data_.size(); }

  // The next field's number and wire type.
  bool Next(uint32_t* field, int* type) {
    field_at_ = at_;
    uint64_t tag;
    if (!Varint(&tag)) return false;
    *field = static_cast<uint32_t>(tag >> 3);
    *type = static_cast<int>(tag & 7);
    if (*field == 0) return Fail("a field numbered 0");
    return true;
  }

  bool Varint(uint64_t* out) {
    *out = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at_ >= data_.size()) return Fail("cut short inside a number");
      auto byte = static_cast<unsigned char>(data_[at_++]);
      *out |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return true;
    }
    return Fail("a number longer than ten bytes");
  }

  // A length-delimited field's bytes, with their offset.
  bool Bytes(std::string_view* out, uint64_t* at) {
    uint64_t n;
    if (!Varint(&n)) return false;
    if (n > data_.size() - at_) return Fail("a field longer than what is left of the profile");
    *at = base_ + at_;
    *out = data_.substr(at_, n);
    at_ += n;
    return true;
  }

  bool Skip(int type) {
    uint64_t ignored;
    std::string_view bytes;
    switch (type) {
      case kVarint: return Varint(&ignored);
      case kLength: return Bytes(&bytes, &ignored);
      case kFixed64: return Advance(8);
      case kFixed32: return Advance(4);
      default: return Fail("wire type " + std::to_string(type) + ", which protobuf does not have");
    }
  }

  // An integer field, or packed integers (a repeated field written either way).
  bool Integers(int type, std::vector<uint64_t>* out) {
    if (type == kVarint) {
      uint64_t v;
      if (!Varint(&v)) return false;
      out->push_back(v);
      return true;
    }
    if (type != kLength) return Fail("an integer field of wire type " + std::to_string(type));
    std::string_view packed;
    uint64_t at;
    if (!Bytes(&packed, &at)) return false;
    Wire inner(packed, at, fail_at_, error_);
    while (!inner.AtEnd()) {
      uint64_t v;
      if (!inner.Varint(&v)) return false;
      out->push_back(v);
    }
    return true;
  }

  bool Integer(int type, uint64_t* out) {
    if (type != kVarint) return Fail("an integer field of wire type " + std::to_string(type));
    return Varint(out);
  }

  bool Message(int type, std::string_view* out, uint64_t* at) {
    if (type != kLength) return Fail("a message field of wire type " + std::to_string(type));
    return Bytes(out, at);
  }

  bool Fail(const std::string& what) {
    *fail_at_ = base_ + field_at_;
    *error_ = what;
    return false;
  }

 private:
  bool Advance(size_t n) {
    if (n > data_.size() - at_) return Fail("cut short inside a fixed-size field");
    at_ += n;
    return true;
  }

  std::string_view data_;
  uint64_t base_;
  size_t at_ = 0, field_at_ = 0;
  uint64_t* fail_at_;
  std::string* error_;
};

// Reads a message's fields: read(field, type, wire) takes those it knows, the rest are skipped.
template <typename ReadField>
bool ReadMessage(std::string_view data, uint64_t base, uint64_t* fail_at, std::string* error,
                 ReadField read) {
  Wire wire(data, base, fail_at, error);
  while (!wire.AtEnd()) {
    uint32_t field;
    int type;
    if (!wire.Next(&field, &type)) return false;
    bool known = false;
    if (!read(field, type, &wire, &known)) return false;
    if (!known && !wire.Skip(type)) return false;
  }
  return true;
}

int64_t Signed(uint64_t v) { return static_cast<int64_t>(v); }  // int64 fields are two's complement varints

// The integer fields numbered 1 to 5 of a message that holds integers only there
// (Label, Line, Function, ValueType); fields past 5 are skipped.
using Integers = std::array<uint64_t, 6>;

bool ReadIntegers(std::string_view data, uint64_t base, uint64_t* fail_at, std::string* error, Integers* v) {
  v->fill(0);
  return ReadMessage(data, base, fail_at, error, [v](uint32_t field, int type, Wire* w, bool* known) {
    *known = field >= 1 && field <= 5;
    return !*known || w->Integer(type, &(*v)[field]);
  });
}

bool ReadLabel(std::string_view data, uint64_t base, uint64_t* fail_at, std::string* error,
               PprofLabel* label) {
  Integers v;
  if (!ReadIntegers(data, base, fail_at, error, &v)) return false;
  *label = PprofLabel{Signed(v[1]), Signed(v[2]), Signed(v[3])};
  return true;
}

bool ReadSample(std::string_view data, uint64_t base, uint64_t* fail_at, std::string* error, PprofSample* s) {
  return ReadMessage(data, base, fail_at, error, [&](uint32_t field, int type, Wire* w, bool* known) {
    *known = field >= 1 && field <= 3;
    if (field == 1) return w->Integers(type, &s->locations);
    if (field == 2) {
      std::vector<uint64_t> values;
      if (!w->Integers(type, &values)) return false;
      for (uint64_t v : values) s->values.push_back(Signed(v));
      return true;
    }
    if (field != 3) return true;
    std::string_view bytes;
    uint64_t at;
    s->labels.emplace_back();
    return w->Message(type, &bytes, &at) && ReadLabel(bytes, at, fail_at, error, &s->labels.back());
  });
}

bool ReadLine(std::string_view data, uint64_t base, uint64_t* fail_at, std::string* error, PprofLine* line) {
  Integers v;
  if (!ReadIntegers(data, base, fail_at, error, &v)) return false;
  *line = PprofLine{v[1], Signed(v[2])};
  return true;
}

bool ReadLocation(std::string_view data, uint64_t base, uint64_t* fail_at, std::string* error,
                  PprofLocation* location) {
  return ReadMessage(data, base, fail_at, error, [&](uint32_t field, int type, Wire* w, bool* known) {
    *known = field == 1 || field == 4;
    if (field == 1) return w->Integer(type, &location->id);
    if (field != 4) return true;
    std::string_view bytes;
    uint64_t at;
    location->lines.emplace_back();
    return w->Message(type, &bytes, &at) && ReadLine(bytes, at, fail_at, error, &location->lines.back());
  });
}

bool ReadFunction(std::string_view data, uint64_t base, uint64_t* fail_at, std::string* error,
                  PprofFunction* function) {
  Integers v;
  if (!ReadIntegers(data, base, fail_at, error, &v)) return false;
  *function = PprofFunction{v[1], Signed(v[2]), Signed(v[4])};
  return true;
}

bool ReadValueType(std::string_view data, uint64_t base, uint64_t* fail_at, std::string* error,
                   std::pair<int64_t, int64_t>* value_type) {
  Integers v;
  if (!ReadIntegers(data, base, fail_at, error, &v)) return false;
  *value_type = {Signed(v[1]), Signed(v[2])};
  return true;
}

}  // namespace

std::string_view PprofProfile::String(int64_t index) const {
  return index >= 0 && static_cast<uint64_t>(index) < strings.size() ? std::string_view(strings[index]) : "";
}

bool LooksLikePprof(std::string_view head) {
  return head.size() >= 3 && head[0] == 0x0a && static_cast<unsigned char>(head[1]) < 0x20 && head[2] == 0x08;
}

bool ReadPprof(std::string_view data, PprofProfile* out, uint64_t* offset, std::string* error) {
  *out = PprofProfile{};
  uint64_t entries = 0;
  return ReadMessage(data, 0, offset, error, [&](uint32_t field, int type, Wire* w, bool* known) {
    *known = field >= 1 && field <= 6 && field != 3;
    if (!*known) return true;
    std::string_view bytes;
    uint64_t at;
    if (!w->Message(type, &bytes, &at)) return false;
    if (++entries > kMaxPprofEntries)  // a two-byte empty sample takes 70 bytes held
      return w->Fail("more than " + std::to_string(kMaxPprofEntries) +
                     " samples, locations, functions and strings");
    switch (field) {
      case 1:
        out->sample_types.emplace_back();
        return ReadValueType(bytes, at, offset, error, &out->sample_types.back());
      case 2: out->samples.emplace_back(); return ReadSample(bytes, at, offset, error, &out->samples.back());
      case 4:
        out->locations.emplace_back();
        return ReadLocation(bytes, at, offset, error, &out->locations.back());
      case 5:
        out->functions.emplace_back();
        return ReadFunction(bytes, at, offset, error, &out->functions.back());
      default: out->strings.emplace_back(bytes); return true;
    }
  });
}

}  // namespace oomlens
