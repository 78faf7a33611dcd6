// Everything needed to compute one LMS tree: its parameter sets, hash backend (with I absorbed),
// I, and — for the signer — SEED. Key derivation per docs/design.md "Key derivation":
//   PRF(I, q, j, SEED) = H(I || u32(q) || u16(j) || 0xFF || SEED), truncated to m
//   x_q[i] = PRF(I, q, i, SEED);  C = PRF(I, q, 0xFFFD, SEED)
//   child SEED' = PRF(I, q, 0xFFFE, SEED) cut to the child's m; child I' = PRF(I, q, 0xFFFF, SEED)[0..16)
#pragma once

#include <array>
#include <cstdint>

#include "hashes/backend.h"
#include "base/error.h"
#include "lms/params.h"
#include "base/secret.h"

namespace klms::lms {

// RFC 8554 domain separation.
inline constexpr std::uint16_t kDomainPublicKey = 0x8080;  // D_PBLC
inline constexpr std::uint16_t kDomainMessage = 0x8181;    // D_MESG
inline constexpr std::uint16_t kDomainLeaf = 0x8282;       // D_LEAF
inline constexpr std::uint16_t kDomainInterior = 0x8383;   // D_INTR
// PRF indices the reference implementation reserves (above any chain index i < p).
inline constexpr std::uint16_t kPrfRandomizer = 0xFFFD;
inline constexpr std::uint16_t kPrfChildSeed = 0xFFFE;
inline constexpr std::uint16_t kPrfChildIdentifier = 0xFFFF;

using Identifier = std::array<std::uint8_t, kIdentifierBytes>;

// Hashes of one tree: backend + prefix state for its I. Cheap to copy, immutable once made.
struct TreeHasher {
  const hashes::Backend* backend = nullptr;
  hashes::PrefixState prefix{};
  Identifier identifier{};

  TreeHasher() = default;
  TreeHasher(const hashes::Backend& b, const Identifier& id) noexcept : backend(&b), identifier(id) {
    b.init_prefix(prefix, id.data());
  }
  void one(const std::uint8_t* rest, std::size_t rest_len, std::uint8_t* out32) const noexcept {
    backend->hash_one(prefix, rest, rest_len, out32);
  }
  void many(const std::uint8_t* const* rests, std::size_t rest_len, std::uint8_t* const* outs,
            std::size_t count) const noexcept {
    backend->hash_many(prefix, rests, rest_len, outs, count);
  }
};

// Which backend computes a hash family: the fastest on this CPU unless a study run picks one.
const hashes::Backend& backend_for(HashFamily family, const hashes::Backend* preferred) noexcept;

struct TreeKey {
  LevelParams params;
  TreeHasher hasher;
  SecretArray<kMaxHashBytes> seed;  // the first m bytes are SEED

  // out (32 bytes; the first m count) = PRF(I, q, j, SEED).
  void prf(std::uint32_t q, std::uint16_t j, std::uint8_t* out32) const noexcept;
  // The key of the tree below leaf q, with that level's parameters.
  TreeKey child(std::uint32_t q, const LevelParams& child_params, const hashes::Backend* preferred) const noexcept;
};

TreeKey make_tree_key(const LevelParams& params, const Identifier& identifier, const std::uint8_t* seed,
                      const hashes::Backend* preferred) noexcept;

}  // namespace klms::lms
