// The raw encodings klms-raw converts, one table entry per scheme (tools/klms_raw.cpp): the
// algorithm's OID in a SubjectPublicKeyInfo, a strict check of its raw public key, and what a
// signature says of the index it was made with. HSS/LMS (RFC 8554 §6.1, §6.2; RFC 9708: the raw
// public key is the subjectPublicKey BIT STRING, parameters absent); XMSS and XMSS^MT (RFC 8391
// Appendix B, C, with RFC 9802's OIDs, the same encoding).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "base/bytes.h"
#include "base/error.h"

namespace klms::tools {

struct RawScheme {
  std::string_view name;  // the --scheme value: "hss", "xmss", "xmssmt"
  const char* oid;        // dotted, for the AlgorithmIdentifier (no parameters)
  std::string_view title;
  // kOk when `raw` is exactly one public key of known parameter sets; `summary` says what it is.
  Error (*check_public_key)(ByteView raw, std::string& summary) noexcept;
  // The lines klms-raw sig-index prints (every level's q and the key's index), or the error.
  Result<std::string> (*describe_signature)(ByteView sig);
};

std::span<const RawScheme> raw_schemes() noexcept;
// Null when no scheme has that name.
const RawScheme* find_raw_scheme(std::string_view name) noexcept;

}  // namespace klms::tools
