// The provider's XMSS / XMSS^MT / K-XMSS private key octets (xmss/xmss_scheme.h, docs/xmss.md "Keys
// in the provider") on arbitrary input: decode_private_key either refuses with one of its three
// errors (kMalformedPrivateKey, kUnknownXmssType, kStatePathInvalid) or returns a key of a set this
// library has whose encoding is exactly the input (the layout is strict: no second spelling of a
// key, no trailing bytes).
#include <cstring>
#include <memory>

#include "test/fuzz/fuzz_util.h"
#include "xmss/xmss_scheme.h"

using klms::Error;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // A copy of exactly `size` bytes, so a read past the input is ASan's to see.
  std::unique_ptr<std::uint8_t[]> copy(size ? new std::uint8_t[size] : nullptr);
  if (size) std::memcpy(copy.get(), data, size);
  const klms::ByteView in(copy.get(), size);
  auto key = klms::xmss::decode_private_key(in);
  if (!key) {
    FUZZ_CHECK(key.error() == Error::kMalformedPrivateKey || key.error() == Error::kUnknownXmssType ||
               key.error() == Error::kStatePathInvalid);
    return 0;
  }
  FUZZ_CHECK(key->params != nullptr);
  FUZZ_CHECK(klms::xmss::find_params(key->params->scheme, key->params->oid) == key->params);
  FUZZ_CHECK(!key->state_file.empty() && key->state_file[0] == '/');
  const klms::SecretBytes again = klms::xmss::encode_private_key(*key);
  FUZZ_CHECK(again.size() == size && std::memcmp(again.data(), in.data(), size) == 0);
  return 0;
}
