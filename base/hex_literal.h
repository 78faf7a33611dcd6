// The bytes of a hex string literal, computed by the compiler, for known answers written in hex as
// their sources print them (provider/self_test_vectors.h, hashes/family_table.cpp): nothing is
// decoded or allocated at run time.
#pragma once

#include <array>
#include <cstddef>

namespace klms {

// Not constexpr: reaching it while the compiler evaluates hex_bytes is a build error.
unsigned not_a_hex_digit(char c);

// A digit that is not hex, or an odd count, makes the constant ill-formed (a build error, not a
// test that silently compares against garbage).
template <std::size_t N>
consteval std::array<unsigned char, (N - 1) / 2> hex_bytes(const char (&hex)[N]) {
  static_assert(N % 2 == 1, "a known answer needs an even number of hex digits");
  auto nibble = [](char c) -> unsigned {
    if (c >= '0' && c <= '9') return static_cast<unsigned>(c - '0');
    if (c >= 'a' && c <= 'f') return static_cast<unsigned>(c - 'a' + 10);
    if (c >= 'A' && c <= 'F') return static_cast<unsigned>(c - 'A' + 10);
    return not_a_hex_digit(c);  // not a constant expression: the build fails
  };
  std::array<unsigned char, (N - 1) / 2> out{};
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<unsigned char>(nibble(hex[2 * i]) << 4 | nibble(hex[2 * i + 1]));
  return out;
}

}  // namespace klms
