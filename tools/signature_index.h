// The index an HSS signature was made with (RFC 8554 §6.2: Nspk, the signed public keys and the
// bottom signature; each LMS signature starts with its leaf q, §5.4), so that `klms-state restore
// --after-signature SIG` can take a high-water mark from the last signature a key made. The
// levels' leaves concatenate into the key's index, top level first (lms/hss.cpp hss_position).
#pragma once

#include <cstdint>
#include <span>

#include "base/error.h"

namespace klms::tools {

// kMalformedSignature unless `sig` is exactly one well-formed HSS signature of known parameter sets.
Result<std::uint64_t> hss_signature_index(std::span<const std::uint8_t> sig) noexcept;

}  // namespace klms::tools
