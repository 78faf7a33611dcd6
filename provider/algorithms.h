// The provider's key algorithms (docs/xmss.md "In the provider"): HSS-LMS, XMSS, XMSS^MT and one
// K-XMSS key generator per K- hash family of the family table (hashes/family_table.h). Each has its
// key manager (its names, the first being the keys' type name); the schemes' OIDs and
// AlgorithmIdentifiers are here too. Keys decoded from their encodings belong to HSS-LMS, XMSS or
// XMSSMT: a K-XMSS key is an XMSS key whose type code names its hash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "base/bytes.h"

namespace klms::provider {

enum class KeyScheme : std::uint8_t { kHss, kXmss, kXmssMt };

// One scheme's identity in encodings and messages.
struct SchemeIdentity {
  KeyScheme scheme;
  const char* name;        // in messages: "HSS/LMS", "XMSS", "XMSS^MT"
  const char* oid;         // dotted
  const char* short_name;  // the OID's short name (OpenSSL's object table)
  const char* long_name;   // the OID's long name, the signature's first name
  klms::ByteView oid_der;         // the OID's DER (tag, length, content)
  klms::ByteView algorithm_der;   // AlgorithmIdentifier { OID } (parameters absent)
  const char* signature_names;    // the signature algorithm's names
  const char* decoder_names;      // the key manager's names (decoders hand keys to it)
};
const SchemeIdentity& scheme_identity(KeyScheme scheme) noexcept;

// A key manager of the provider.
struct KeyAlgorithm {
  KeyScheme scheme;
  std::string_view names;           // "id-alg-xmss-hashsig:XMSS:1.3.6.1.5.5.7.6.34", "K-XMSS-LSH256"
  std::string_view default_params;  // XMSS kinds: the set generated without params; empty for HSS
  std::string_view params_prefix;   // XMSS kinds: what every set name it generates starts with
  std::string_view description;
};

// The key managers, in a fixed order: 0 HSS-LMS, 1 XMSS, 2 XMSSMT, then the K-XMSS ones
// (at most kMaxKeyAlgorithms in all).
inline constexpr std::size_t kMaxKeyAlgorithms = 8;
std::span<const KeyAlgorithm> key_algorithms();

}  // namespace klms::provider
