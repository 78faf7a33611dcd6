// XMSS parameter sets: RFC 8391 / SP 800-208 sets that run on this project's backends (SHA-256,
// SHA-256/192, SHAKE256/256, SHAKE256/192), and K-XMSS (RFC 8391 with only the hash replaced by
// LSH-256 or a Tandem-DM hash, private-use type codes; docs/xmss.md).
//
// Every hash XMSS computes is H(toByte(x, pad) || KEY || M). With pad = 32 (every n = 32 set) the
// first 16 bytes are zero for every x, so they are the backend's fixed 16-byte prefix and the
// hashes run through hash_one / hash_many exactly like LMS hashes with I. The n = 24 sets of SP
// 800-208 have pad = 4 and run message by message through the backend's digest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "base/error.h"
#include "hashes/backend.h"

namespace klms::xmss {

using hashes::HashFamily;

inline constexpr std::size_t kMaxN = 32;
inline constexpr unsigned kMaxHeight = 20;
inline constexpr std::size_t kMaxLen = 133;  // WOTS+ chains at w = 4, n = 32

struct Params {
  std::uint32_t oid = 0;      // XMSS type code; 0 for a study-only combination without a code
  std::string_view name;      // "XMSS-SHA2_10_256", "K-XMSS-LSH256_10_256", ...
  HashFamily family = HashFamily::kSha256;
  std::uint8_t n = 32;        // hash output and node bytes
  std::uint8_t log_w = 4;     // w = 2^log_w: 4, 16 or 256
  std::uint8_t h = 10;        // tree height
  std::uint8_t pad = 32;      // bytes of toByte(x, pad) in front of every hash input
  std::uint16_t len1 = 0, len2 = 0, len = 0;  // WOTS+ chains (RFC 8391 §3.1.1)
  bool kxmss = false;         // a private-use K-XMSS set

  unsigned w() const noexcept { return 1u << log_w; }
  std::uint64_t leaves() const noexcept { return std::uint64_t{1} << h; }
  std::size_t public_key_bytes() const noexcept { return 4 + 2 * std::size_t{n}; }
  // idx (4 bytes) || r || WOTS+ signature || authentication path
  std::size_t signature_bytes() const noexcept { return 4 + n + (std::size_t{len} + h) * n; }
};

// The named sets (standard first). Lookups by code or by name (case-insensitive).
std::span<const Params> all_params() noexcept;
const Params* find_params(std::uint32_t oid) noexcept;
const Params* find_params(std::string_view name) noexcept;
// The set for a family, n, h and log2(w): the named one when it exists, else (for the study's
// heights that no code names) one derived by the same rules with oid 0. kUnknownXmssType when the
// combination is impossible (n not 24/32, log_w not 2/4/8, h not 2..20, no backend family).
Result<Params> params_for(HashFamily family, unsigned n, unsigned h, unsigned log_w) noexcept;

}  // namespace klms::xmss
