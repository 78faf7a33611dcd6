// Fixed-size secret bytes that are wiped when they go away.
#pragma once

#include <strings.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string.h>

namespace klms {

template <std::size_t N>
class SecretArray {
 public:
  SecretArray() noexcept { bytes_.fill(0); }
  SecretArray(const SecretArray& other) noexcept = default;
  SecretArray& operator=(const SecretArray& other) noexcept = default;
  ~SecretArray() { explicit_bzero(bytes_.data(), N); }

  std::uint8_t* data() noexcept { return bytes_.data(); }
  const std::uint8_t* data() const noexcept { return bytes_.data(); }
  static constexpr std::size_t size() noexcept { return N; }

 private:
  std::array<std::uint8_t, N> bytes_;
};

inline void wipe(void* p, std::size_t n) noexcept { explicit_bzero(p, n); }

}  // namespace klms
