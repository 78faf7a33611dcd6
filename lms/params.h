// The LMS and LM-OTS parameter sets of docs/params.md: the standard RFC 8554 / RFC 9858 sets and the
// K-LMS private-use sets, found by type code or by name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hashes/backend.h"

namespace klms::lms {

using hashes::HashFamily;

inline constexpr unsigned kMaxLevels = 8;
inline constexpr std::size_t kIdentifierBytes = 16;
inline constexpr std::size_t kMaxHashBytes = 32;

struct OtsParams {
  std::uint32_t code;
  HashFamily hash;
  std::uint8_t n;   // hash output bytes
  std::uint8_t w;   // Winternitz parameter: 1, 2, 4 or 8
  std::uint16_t p;  // number of n-byte chains (RFC 8554 Appendix B)
  std::uint8_t ls;  // left shift of the checksum
  std::string_view name;  // "LMOTS_SHA256_N32_W4"
  std::size_t signature_bytes() const noexcept { return 4 + n + std::size_t{p} * n; }
  unsigned chain_max() const noexcept { return (1u << w) - 1; }
};

struct LmsParams {
  std::uint32_t code;
  HashFamily hash;
  std::uint8_t m;  // node bytes
  std::uint8_t h;  // tree height
  std::string_view name;  // "LMS_SHA256_M32_H10"
  std::uint64_t leaves() const noexcept { return std::uint64_t{1} << h; }
};

// One HSS level: its LMS and LM-OTS sets (same hash, n == m).
struct LevelParams {
  const LmsParams* lms = nullptr;
  const OtsParams* ots = nullptr;
  std::size_t public_key_bytes() const noexcept { return 4 + 4 + kIdentifierBytes + lms->m; }
  std::size_t signature_bytes() const noexcept { return 4 + ots->signature_bytes() + 4 + std::size_t{lms->h} * lms->m; }
};

const OtsParams* find_ots(std::uint32_t code) noexcept;
const LmsParams* find_lms(std::uint32_t code) noexcept;
// Case-insensitive, exactly as docs/params.md "Names" names them.
const OtsParams* find_ots(std::string_view name) noexcept;
const LmsParams* find_lms(std::string_view name) noexcept;
// Every set, standard first, for listings and exhaustive tests.
std::span<const OtsParams> all_ots() noexcept;
std::span<const LmsParams> all_lms() noexcept;

// The hash-family tokens of docs/params.md "Hash families" ("SHA256", "SHAKE/192", "LSH256", "TDMARIA/192", ...).
struct HashToken {
  HashFamily hash;
  std::uint8_t n;
};
std::optional<HashToken> parse_hash_token(std::string_view token) noexcept;
std::string hash_token_name(HashFamily hash, unsigned n);
// The set for a family, n, and h (LMS) or w (LM-OTS); null when there is none.
const LmsParams* lms_for(HashFamily hash, unsigned m, unsigned h) noexcept;
const OtsParams* ots_for(HashFamily hash, unsigned n, unsigned w) noexcept;

// True when the LMS and LM-OTS sets may form one level (same hash family and n).
bool compatible(const LmsParams& lms, const OtsParams& ots) noexcept;

}  // namespace klms::lms
