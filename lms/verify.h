// Verification of LMS and HSS signatures (RFC 8554 §5.4.2, §6.3) over the strict parsers of
// lms/wire_format.h: on top of those, a signature's types must equal its key's.
#pragma once

#include <cstdint>
#include <span>

#include "hashes/backend.h"
#include "base/bytes.h"
#include "base/error.h"
#include "lms/params.h"
#include "lms/wire_format.h"

namespace klms::lms {

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
