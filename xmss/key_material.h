// What an XMSS or XMSS^MT private key is, apart from its index (which the state store keeps):
// the set, SK_SEED and SK_PRF (secret, wiped when it goes away), SEED and the public root
// (RFC 8391 §4.1.7, §4.2.2; the key derivation of SP 800-208 that the reference implementation uses).
#pragma once

#include <array>
#include <cstdint>

#include "base/bytes.h"
#include "base/error.h"
#include "base/secret.h"
#include "xmss/params.h"

namespace klms::xmss {

struct KeyMaterial {
  Params params;  // one of all_params(), or a study combination of params_for()
  SecretArray<kMaxN> sk_seed, sk_prf;
  std::array<std::uint8_t, kMaxN> pub_seed{}, root{};

  Bytes public_key() const;
  // kBadSeedLength unless every field is n bytes.
  static Result<KeyMaterial> from_fields(const Params& params, ByteView sk_seed, ByteView sk_prf, ByteView pub_seed,
                                         ByteView root);
};

}  // namespace klms::xmss
