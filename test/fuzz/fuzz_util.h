// Shared pieces of the libFuzzer targets: a check that aborts with a message (libFuzzer then saves
// the input as a crash), hex decoding for the fixed keys, and span helpers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include "base/bytes.h"

namespace klms::fuzz {

[[noreturn]] inline void fail(const char* file, int line, const char* what) {
  std::fprintf(stderr, "\nFUZZ CHECK FAILED at %s:%d: %s\n", file, line, what);
  std::fflush(stderr);
  std::abort();
}

#define FUZZ_CHECK(cond)                                           \
  do {                                                             \
    if (!(cond)) ::klms::fuzz::fail(__FILE__, __LINE__, #cond);    \
  } while (0)

inline klms::Bytes from_hex(std::string_view hex) {
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  klms::Bytes out;
  out.reserve(hex.size() / 2);
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    const int hi = nibble(hex[i]), lo = nibble(hex[i + 1]);
    if (hi < 0 || lo < 0) fail(__FILE__, __LINE__, "bad hex constant");
    out.push_back(static_cast<std::uint8_t>(hi << 4 | lo));
  }
  if (hex.size() % 2 != 0) fail(__FILE__, __LINE__, "odd hex constant");
  return out;
}

inline bool same_bytes(klms::ByteView a, klms::ByteView b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size()) == 0);
}

// True when `inner` lies entirely inside `outer` (views returned by a parser must).
inline bool within(klms::ByteView inner, klms::ByteView outer) {
  if (inner.empty()) return true;
  const auto* b = outer.data();
  const auto* e = outer.data() + outer.size();
  return inner.data() >= b && inner.data() + inner.size() <= e;
}

// Reads input front to back; never fails, shorter input gives zeros / empty views.
class Input {
 public:
  Input(const std::uint8_t* data, std::size_t size) : data_(data, size) {}
  std::uint8_t u8() {
    if (data_.empty()) return 0;
    const std::uint8_t v = data_[0];
    data_ = data_.subspan(1);
    return v;
  }
  std::uint16_t u16() {
    const std::uint16_t hi = u8();
    return static_cast<std::uint16_t>(hi << 8 | u8());
  }
  // Up to n bytes (fewer when the input ends).
  klms::ByteView take(std::size_t n) {
    if (n > data_.size()) n = data_.size();
    klms::ByteView v = data_.first(n);
    data_ = data_.subspan(n);
    return v;
  }
  klms::ByteView rest() const { return data_; }

 private:
  klms::ByteView data_;
};

}  // namespace klms::fuzz
