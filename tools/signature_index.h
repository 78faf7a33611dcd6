// The index an HSS signature was made with (RFC 8554 §6.2: Nspk, the signed public keys and the
// bottom signature; each LMS signature starts with its leaf q, §5.4), so that `klms-state restore
// --after-signature SIG` can take a high-water mark from the last signature a key made, and
// `klms-raw sig-index` can print it. The levels' leaves concatenate into the key's index, top
// level first (lms/hss.cpp hss_position).
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "base/error.h"
#include "lms/params.h"

namespace klms::tools {

// One level of a signature: its parameter sets and the leaf q it signed with.
struct LevelPosition {
  lms::LevelParams params;
  std::uint32_t q = 0;
};

struct SignaturePosition {
  std::array<LevelPosition, lms::kMaxLevels> levels{};
  std::uint32_t count = 0;  // levels used: Nspk + 1
  std::uint64_t index = 0;  // the key's index: the levels' q concatenated, top first
};

// kMalformedSignature unless `sig` is exactly one well-formed HSS signature of known parameter sets
// whose heights add up to at most 64.
Result<SignaturePosition> hss_signature_position(std::span<const std::uint8_t> sig) noexcept;
Result<std::uint64_t> hss_signature_index(std::span<const std::uint8_t> sig) noexcept;

}  // namespace klms::tools
