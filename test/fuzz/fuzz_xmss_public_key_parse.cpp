// The XMSS / XMSS^MT public-key parser and the reference implementation's private-key layout
// (xmss/wire_format.h) on arbitrary input. Bit 0 of byte 0 picks the scheme (XMSS, XMSS^MT), the
// rest is the candidate key. parse_public_key accepts exactly 4 + 2n bytes with a code of a set of
// that scheme this library has, its views tile the input, and encoding the view gives the input back;
// parse_reference_private_key accepts exactly 4 + index_bytes + 4n bytes with such a code, and
// encoding the parsed key gives the input back. Errors are the specific ones, never another.
#include <cstring>
#include <memory>

#include "test/fuzz/fuzz_util.h"
#include "xmss/wire_format.h"

using klms::Error;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const auto scheme = (data[0] & 1) != 0 ? klms::xmss::Scheme::kXmssMt : klms::xmss::Scheme::kXmss;
  const std::size_t len = size - 1;
  std::unique_ptr<std::uint8_t[]> copy(len ? new std::uint8_t[len] : nullptr);
  if (len) std::memcpy(copy.get(), data + 1, len);
  const klms::ByteView in(copy.get(), len);
  const klms::xmss::Params* by_code = len >= 4 ? klms::xmss::find_params(scheme, klms::get_u32(in.data())) : nullptr;

  const auto key = klms::xmss::parse_public_key(scheme, in);
  if (key) {
    FUZZ_CHECK(key->params == by_code && key->params->scheme == scheme);
    FUZZ_CHECK(len == key->params->public_key_bytes());
    FUZZ_CHECK(key->root.data() == in.data() + 4 && key->root.size() == key->params->n);
    FUZZ_CHECK(key->pub_seed.data() == in.data() + 4 + key->params->n && key->pub_seed.size() == key->params->n);
    const klms::Bytes again = klms::xmss::encode_public_key(*key->params, key->root.data(), key->pub_seed.data());
    FUZZ_CHECK(again.size() == len && std::memcmp(again.data(), in.data(), len) == 0);
  } else if (by_code == nullptr) {
    FUZZ_CHECK(key.error() == (len < 4 ? Error::kMalformedPublicKey : Error::kUnknownXmssType));
  } else {
    FUZZ_CHECK(key.error() == Error::kMalformedPublicKey && len != by_code->public_key_bytes());
  }

  const auto sk = klms::xmss::parse_reference_private_key(scheme, in);
  if (sk) {
    FUZZ_CHECK(sk->params == by_code);
    FUZZ_CHECK(len == 4 + by_code->index_bytes() + 4 * std::size_t{by_code->n});
    const klms::SecretBytes again = klms::xmss::encode_reference_private_key(*sk);
    FUZZ_CHECK(again.size() == len && std::memcmp(again.data(), in.data(), len) == 0);
  } else if (by_code == nullptr) {
    FUZZ_CHECK(sk.error() == (len < 4 ? Error::kMalformedPrivateKey : Error::kUnknownXmssType));
  } else {
    FUZZ_CHECK(sk.error() == Error::kMalformedPrivateKey);
  }
  return 0;
}
