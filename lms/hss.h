// HSS, the hierarchy of LMS trees (RFC 8554 §6): the rules for its levels, the number of
// signatures they give, the public key u32(L) || LMS public key of the top tree, the signature
// u32(Nspk) || (LMS signature, signed LMS public key) per lower level || the bottom LMS signature,
// and where a global index falls in each level. The LMS pieces themselves are in lms/verify.h
// (their parsers) and lms/lms_sign.h (their writers).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "base/bytes.h"
#include "base/error.h"
#include "lms/params.h"
#include "lms/verify.h"

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

// Bytes of an HSS public key for this top level.
std::size_t hss_public_key_bytes(const LevelParams& top) noexcept;

// The raw HSS public key u32(L) || LMS public key of the top tree with this root.
Bytes hss_public_key(const HssPrivateKey& key, const std::uint8_t* root);

struct HssPublicKeyView {
  std::uint32_t levels = 0;
  LmsPublicKeyView top;
};
Result<HssPublicKeyView> parse_hss_public_key(ByteView in) noexcept;

// ---- Signature ----

// Bytes of an HSS signature for these levels.
std::size_t hss_signature_bytes(std::span<const LevelParams> levels) noexcept;

struct HssSignatureParts {
  std::uint32_t levels = 0;
  LmsPublicKeyView keys[kMaxLevels];   // keys[0] is the top-level key, keys[i] signed by sigs[i-1]
  LmsSignatureView sigs[kMaxLevels];   // sigs[levels-1] signs the message
};

// Every check of hss_verify that does not need the message: exact lengths, known type codes,
// Nspk = L - 1, q < 2^h. The views point into `public_key` and `signature`.
Error parse_hss_signature(ByteView public_key, ByteView signature, HssSignatureParts& out) noexcept;

}  // namespace klms::lms
