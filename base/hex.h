// Lower-case hex of a fixed-size byte array (key ids, digests): klms-state's output, etcd key names.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace klms {

template <std::size_t N>
std::string hex(const std::array<std::uint8_t, N>& bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (std::uint8_t b : bytes) {
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

}  // namespace klms
