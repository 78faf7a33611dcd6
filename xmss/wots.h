// WOTS+ (RFC 8391 §3.1) over a Hasher, with the SP 800-208 private-key derivation of the reference
// implementation: sk[i] = PRF_keygen(SK_SEED, SEED || ADRS(OTS index, chain i, hash 0, key 0)).
// Chain values live in 32-byte slots (the backend writes 32 bytes; the first n count).
#pragma once

#include <cstddef>
#include <cstdint>

#include "xmss/hasher.h"

namespace klms::xmss {

inline constexpr unsigned kLeafBatch = 8;  // leaves whose chains advance together in key generation

// The len base-w digits of an n-byte message digest followed by its checksum (RFC 8391 §3.1.5).
// The checksum is shifted left by (8 - len2 lg(w) mod 8) mod 8 bits: the RFC's rule for w = 4 and
// w = 16; for w = 256 the "mod 8" keeps its high byte (docs/xmss.md).
void message_digits(const Params& params, const std::uint8_t* digest, std::uint8_t* digits) noexcept;

// Public keys of the WOTS+ key pairs at OTS indices first .. first+count-1 (count <= kLeafBatch):
// pks gets count * len slots, leaf by leaf.
void wots_public_keys(const Hasher& hasher, const std::uint8_t* sk_seed, const TreeAddress& tree, std::uint32_t first,
                      unsigned count, std::uint8_t* pks) noexcept;
// Signature of an n-byte digest with the key pair at ots_index: len slots.
void wots_sign(const Hasher& hasher, const std::uint8_t* sk_seed, const TreeAddress& tree, std::uint32_t ots_index,
               const std::uint8_t* digest, std::uint8_t* sig_slots) noexcept;
// The public key a signature (len n-byte values, packed) implies: len slots.
void wots_public_key_from_signature(const Hasher& hasher, const TreeAddress& tree, std::uint32_t ots_index,
                                    const std::uint8_t* digest, const std::uint8_t* signature,
                                    std::uint8_t* pk_slots) noexcept;

}  // namespace klms::xmss
