// The two halves of HSS verification, for verifiers that hash the message as it streams
// (lms/verify_stream.h): parse key and signature first (parse_hss_signature, lms/wire_format.h), then check
// one LMS level from its message digest Q. hss_verify (lms/verify.h) is these two in one call.
#pragma once

#include <cstdint>

#include "lms/hss.h"
#include "lms/tree_key.h"
#include "lms/verify.h"

namespace klms::lms {

// One LMS level from the message digest Q = H(I || u32(q) || D_MESG || C || message) that
// `hasher` (built for key.identifier) computed: kOk or kVerifyFailed.
Error lms_verify_digest(const LmsPublicKeyView& key, const LmsSignatureView& sig, const TreeHasher& hasher,
                        const std::uint8_t* q_digest) noexcept;

// The TreeHasher of a level's key (its hash family's backend, I absorbed).
TreeHasher hasher_for(const LmsPublicKeyView& key, const hashes::Backend* preferred = nullptr) noexcept;

}  // namespace klms::lms
