// The LMS and HSS wire format, parsed and written in one place (docs/design.md "Encodings"):
//   LMS public key (RFC 8554 §5.3)  u32(lms type) || u32(ots type) || I (16) || T[1] (m)
//   LMS signature  (RFC 8554 §5.4)  u32(q) || u32(ots type) || C (n) || y[0..p-1] (p*n)
//                                   || u32(lms type) || path[0..h-1] (h*m)
//   HSS public key (RFC 8554 §6.1)  u32(L) || LMS public key of the top tree
//   HSS signature  (RFC 8554 §6.2)  u32(Nspk = L-1) || (LMS signature, signed LMS public key) per
//                                   lower level || the bottom level's LMS signature
// Parsing is strict: exact lengths, known type codes, compatible LMS/LM-OTS sets, q < 2^h,
// Nspk = L - 1, no trailing bytes, and it never reads past its input. Views point into the input;
// nothing here allocates except the Bytes-returning writers. What the fields mean (hashing, keys) is
// elsewhere: lms/verify.h checks them, lms/lms_sign.h fills them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "base/bytes.h"
#include "base/error.h"
#include "lms/params.h"

namespace klms::lms {

// ---- LMS public key (§5.3) ----

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

// Writes the LMS public key of these sets, I (16 bytes) and root (m bytes) to out
// (params.public_key_bytes() bytes).
void write_lms_public_key(const LevelParams& params, const std::uint8_t* identifier, const std::uint8_t* root,
                          std::uint8_t* out) noexcept;

// ---- LMS signature (§5.4) ----

struct LmsSignatureView {
  std::uint32_t q = 0;
  LevelParams params;
  ByteView randomizer;  // C, n bytes
  ByteView chains;      // y, p*n bytes
  ByteView path;        // h*m bytes
};

// An LMS signature at the front of `in`, its length in `consumed`.
Result<LmsSignatureView> parse_lms_signature_prefix(ByteView in, std::size_t& consumed) noexcept;

// Where a signer puts C, y and the path of an LMS signature being written.
struct LmsSignatureSlots {
  std::uint8_t* randomizer;  // n bytes
  std::uint8_t* chains;      // p*n bytes
  std::uint8_t* path;        // h*m bytes
};

// Writes u32(q), u32(ots type) and u32(lms type) of an LMS signature into out
// (params.signature_bytes() bytes) and says where its other fields go.
LmsSignatureSlots write_lms_signature_frame(const LevelParams& params, std::uint32_t q, std::uint8_t* out) noexcept;

// ---- HSS public key (§6.1) ----

// Bytes of an HSS public key for this top level.
std::size_t hss_public_key_bytes(const LevelParams& top) noexcept;

struct HssPublicKeyView {
  std::uint32_t levels = 0;
  LmsPublicKeyView top;
};
Result<HssPublicKeyView> parse_hss_public_key(ByteView in) noexcept;

// u32(levels) || the top tree's LMS public key (sets `top`, I, root).
Bytes encode_hss_public_key(std::uint32_t levels, const LevelParams& top, const std::uint8_t* identifier,
                            const std::uint8_t* root);

// ---- HSS signature (§6.2) ----

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

// One lower level of an HSS signature: its parent's LMS signature of `public_key`, then that key.
struct SignedPublicKey {
  ByteView signature;
  ByteView public_key;
};

// Writes u32(Nspk = signed_keys.size()) and the signed keys to the front of `out` and returns the
// rest of `out`, where the bottom level's LMS signature goes; kInternal when they do not fit.
Result<std::span<std::uint8_t>> write_hss_signature_head(std::span<const SignedPublicKey> signed_keys,
                                                         std::span<std::uint8_t> out) noexcept;

}  // namespace klms::lms
