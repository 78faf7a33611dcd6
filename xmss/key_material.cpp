#include "xmss/key_material.h"

#include <cstring>

#include "xmss/wire_format.h"

namespace klms::xmss {

Bytes KeyMaterial::public_key() const { return encode_public_key(params, root.data(), pub_seed.data()); }

Result<KeyMaterial> KeyMaterial::from_fields(const Params& params, ByteView sk_seed, ByteView sk_prf,
                                             ByteView pub_seed, ByteView root) {
  const std::size_t n = params.n;
  if (sk_seed.size() != n || sk_prf.size() != n || pub_seed.size() != n || root.size() != n) {
    return Error::kBadSeedLength;
  }
  KeyMaterial k;
  k.params = params;
  std::memcpy(k.sk_seed.data(), sk_seed.data(), n);
  std::memcpy(k.sk_prf.data(), sk_prf.data(), n);
  std::memcpy(k.pub_seed.data(), pub_seed.data(), n);
  std::memcpy(k.root.data(), root.data(), n);
  return k;
}

}  // namespace klms::xmss
