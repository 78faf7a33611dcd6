// Byte strings and the big-endian integer encodings of RFC 8554 (u32str, u16str, u8str) on base/endian.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "base/endian.h"

namespace klms {

using Bytes = std::vector<std::uint8_t>;
using ByteView = std::span<const std::uint8_t>;

// RFC 8554's names for the big-endian encodings of base/endian.h.
inline void put_u16(std::uint8_t* p, std::uint32_t v) noexcept { endian::store_be16(p, static_cast<std::uint16_t>(v)); }
inline void put_u32(std::uint8_t* p, std::uint32_t v) noexcept { endian::store_be32(p, v); }
inline void put_u64(std::uint8_t* p, std::uint64_t v) noexcept { endian::store_be64(p, v); }
inline std::uint32_t get_u32(const std::uint8_t* p) noexcept { return endian::load_be32(p); }
inline std::uint64_t get_u64(const std::uint8_t* p) noexcept { return endian::load_be64(p); }

// Appends by resize + memcpy: GCC 12 reports false -Wstringop-overflow on vector::insert of short
// ranges, and this is as fast.
template <typename Container>
void append_bytes(Container& out, const std::uint8_t* data, std::size_t len) {
  if (len == 0) return;
  const std::size_t old = out.size();
  out.resize(old + len);
  std::memcpy(out.data() + old, data, len);
}
template <typename Container>
void append_u32(Container& out, std::uint32_t v) {
  const std::size_t old = out.size();
  out.resize(old + 4);
  endian::store_be32(out.data() + old, v);
}
template <typename Container>
void append(Container& out, ByteView v) {
  append_bytes(out, v.data(), v.size());
}

// Copies one hash value of n = 24 or 32 bytes. Two fixed-size copies compile to vector moves; a
// variable-size memcpy here became `rep movsq`, which costs more than the copy on the hot path.
inline void copy_hash(std::uint8_t* dst, const std::uint8_t* src, std::size_t n) noexcept {
  if (n == 32) {
    std::memcpy(dst, src, 32);
  } else if (n == 24) {
    std::memcpy(dst, src, 24);
  } else {
    std::memcpy(dst, src, n);
  }
}

// Reads fields front to back and remembers whether it ever ran out; parsers check `ok()` once.
class Reader {
 public:
  explicit Reader(ByteView data) noexcept : data_(data) {}
  bool take_u32(std::uint32_t& v) noexcept {
    if (data_.size() < 4) return fail();
    v = get_u32(data_.data());
    data_ = data_.subspan(4);
    return true;
  }
  bool take(std::size_t n, ByteView& v) noexcept {
    if (data_.size() < n) return fail();
    v = data_.first(n);
    data_ = data_.subspan(n);
    return true;
  }
  std::size_t remaining() const noexcept { return data_.size(); }
  ByteView rest() const noexcept { return data_; }
  bool ok() const noexcept { return ok_; }

 private:
  bool fail() noexcept {
    ok_ = false;
    return false;
  }
  ByteView data_;
  bool ok_ = true;
};

}  // namespace klms
