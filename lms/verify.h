// Parsing and verification of LMS public keys and signatures, and HSS verification (RFC 8554 §5.4,
// §6.3); the HSS public key and signature layouts are in lms/hss.h.
// Strict: exact lengths, known type codes, q < 2^h, signature types equal to the key's, matching
// hash and n within a level, Nspk = L - 1, no trailing bytes. Never reads past its input.
#pragma once

#include <cstdint>
#include <span>

#include "hashes/backend.h"
#include "base/bytes.h"
#include "base/error.h"
#include "lms/params.h"

namespace klms::lms {

struct LmsPublicKeyView {
  LevelParams params;
  ByteView identifier;  // 16 bytes
  ByteView root;        // m bytes
  ByteView encoded;     // the whole u32 type || u32 otstype || I || T[1]
};

// An LMS public key at the front of `in`; `consumed` gets its length. Does not require the input
// to end there (HSS signatures carry public keys inside).
Result<LmsPublicKeyView> parse_lms_public_key_prefix(ByteView in, std::size_t& consumed) noexcept;
Result<LmsPublicKeyView> parse_lms_public_key(ByteView in) noexcept;

struct LmsSignatureView {
  std::uint32_t q = 0;
  LevelParams params;
  ByteView randomizer;  // C, n bytes
  ByteView chains;      // y, p*n bytes
  ByteView path;        // h*m bytes
};

// An LMS signature at the front of `in`, its length in `consumed`.
Result<LmsSignatureView> parse_lms_signature_prefix(ByteView in, std::size_t& consumed) noexcept;

// kOk, kVerifyFailed, or a parse error (kMalformedSignature, kUnknownLmsType, ...).
// `preferred` picks a backend for the key's hash family (study runs); null = fastest.
Error lms_verify(const LmsPublicKeyView& key, ByteView message, ByteView signature,
                 const hashes::Backend* preferred = nullptr) noexcept;
Error hss_verify(ByteView public_key, ByteView message, ByteView signature,
                 const hashes::Backend* preferred = nullptr) noexcept;
// The same with the message in pieces, hashed in order as one message: a streamed message kept as
// it arrived, without first copying it into one buffer.
Error hss_verify_pieces(ByteView public_key, std::span<const ByteView> message, ByteView signature,
                        const hashes::Backend* preferred = nullptr) noexcept;

}  // namespace klms::lms
