// HSS, the hierarchy of LMS trees (RFC 8554 §6): the rules for its levels, the number of
// signatures they give, where a global index falls in each level, and a private key's public key.
// The byte layouts of HSS and LMS keys and signatures, parsed and written, are in lms/wire_format.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "base/bytes.h"
#include "base/error.h"
#include "lms/params.h"
#include "lms/wire_format.h"

namespace klms::lms {

struct HssPrivateKey;

// ---- Levels ----

// L in 1..8, each level's LMS and LM-OTS sets compatible, one hash family and one n throughout
// (docs/params.md "Rules" for key generation).
Error check_generation_levels(const std::vector<LevelParams>& levels) noexcept;

// 2^(sum of h) when that is at most 63, else 2^64 - 1 (docs/state.md "Max signatures").
std::uint64_t max_signatures(std::span<const LevelParams> levels) noexcept;

// Per-level leaf numbers and tree numbers of a global HSS index.
struct HssPosition {
  std::uint32_t leaf[kMaxLevels] = {};
  std::uint64_t tree[kMaxLevels] = {};  // which tree of its level (0 for the top)
};
HssPosition hss_position(const std::vector<LevelParams>& levels, std::uint64_t q) noexcept;

// ---- Public key ----

// The raw HSS public key u32(L) || LMS public key of the top tree with this root
// (lms/wire_format.h).
Bytes hss_public_key(const HssPrivateKey& key, const std::uint8_t* root);

}  // namespace klms::lms
