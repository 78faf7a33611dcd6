// Secrets that are wiped when they go away: fixed-size arrays, byte vectors (through an allocator
// that wipes every buffer it gives back, including the old buffer when a vector grows), and the
// wipe itself (docs/threat-model.md "Secrets in memory").
#pragma once

#include <strings.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string.h>
#include <vector>

namespace klms {

// explicit_bzero: a store the compiler cannot drop as dead.
inline void wipe(void* p, std::size_t n) noexcept { explicit_bzero(p, n); }

template <std::size_t N>
class SecretArray {
 public:
  SecretArray() noexcept { bytes_.fill(0); }
  SecretArray(const SecretArray& other) noexcept = default;
  SecretArray& operator=(const SecretArray& other) noexcept = default;
  ~SecretArray() { wipe(bytes_.data(), N); }

  std::uint8_t* data() noexcept { return bytes_.data(); }
  const std::uint8_t* data() const noexcept { return bytes_.data(); }
  // For passphrase buffers handed to C callbacks that take char*.
  char* chars() noexcept { return reinterpret_cast<char*>(bytes_.data()); }
  static constexpr std::size_t size() noexcept { return N; }

 private:
  std::array<std::uint8_t, N> bytes_;
};

// Wipes every buffer before giving it back to the heap.
template <typename T>
struct WipingAllocator {
  using value_type = T;
  WipingAllocator() = default;
  template <typename U>
  WipingAllocator(const WipingAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return std::allocator<T>{}.allocate(n); }
  void deallocate(T* p, std::size_t n) noexcept {
    wipe(p, n * sizeof(T));
    std::allocator<T>{}.deallocate(p, n);
  }
  template <typename U>
  bool operator==(const WipingAllocator<U>&) const noexcept { return true; }
};

// Secret bytes of any length (private-key encodings, decrypted key material, seed parameters).
using SecretBytes = std::vector<std::uint8_t, WipingAllocator<std::uint8_t>>;

}  // namespace klms
