// The streaming digests the provider registers (docs/params.md "Digests"), as plain C++ with no OpenSSL.
// A context is a trivially copyable block of `context_size` bytes (dupctx is memcpy), aligned to 64.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace klms::hashes {

inline constexpr std::size_t kMaxDigestContextBytes = 1024;
inline constexpr std::size_t kDigestContextAlign = 64;

struct DigestAlgorithm {
  std::string_view name;  // primary name, as docs/params.md "Digests": "LSH-256-256"
  std::size_t block_size;  // bytes
  std::size_t output_size;  // bytes
  std::size_t context_size;  // <= kMaxDigestContextBytes
  void (*init)(void* context) noexcept;
  // Any length, including more than 4 GiB over several calls; data may be null when len == 0.
  void (*update)(void* context, const std::uint8_t* data, std::size_t len) noexcept;
  void (*final)(void* context, std::uint8_t* out) noexcept;  // writes output_size bytes
};

// LSH-256-256, LSH-256-224, LSH-512-512, LSH-512-384, LSH-512-256, LSH-512-224, TDM-CHAM, TDM-LEA,
// TDM-ARIA, in that order. LSH uses the vectorized compression function when the CPU has it.
std::span<const DigestAlgorithm> digest_algorithms() noexcept;
const DigestAlgorithm* find_digest(std::string_view name) noexcept;

}  // namespace klms::hashes
