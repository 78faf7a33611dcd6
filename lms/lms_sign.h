// Making LMS signatures (RFC 8554 §5.4.1) once the authentication path is known: the randomizer C
// and the LM-OTS chains, written into the layout of lms/wire_format.h.
#pragma once

#include <cstdint>

#include "base/bytes.h"
#include "lms/tree_key.h"

namespace klms::lms {

// C = PRF(I, q, 0xFFFD, SEED): deterministic, so a retried or repeated signature at the same index
// is the same signature (docs/state.md §11).
void randomizer(const TreeKey& key, std::uint32_t q, std::uint8_t* out32) noexcept;

// Writes the LMS signature of digest Q (made with randomizer C) at leaf q into out
// (key.params.signature_bytes() bytes).
void write_lms_signature(const TreeKey& key, std::uint32_t q, const std::uint8_t* randomizer_c,
                         const std::uint8_t* q_digest, const std::uint8_t* path, std::uint8_t* out) noexcept;

// Hashes `message` and signs it at leaf q (used for the lower levels' public keys).
void lms_sign_message(const TreeKey& key, std::uint32_t q, ByteView message, const std::uint8_t* path,
                      std::uint8_t* out) noexcept;

// The LMS public key of this tree with this root (write_lms_public_key, lms/wire_format.h).
Bytes lms_public_key(const TreeKey& key, const std::uint8_t* root);

}  // namespace klms::lms
