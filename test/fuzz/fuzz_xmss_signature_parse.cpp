// The XMSS signature and public-key parsers (xmss/xmss.h) on arbitrary input. Byte 0 picks a
// parameter set (an index into all_params()), the rest is the candidate signature: parse_signature
// accepts exactly signature_bytes() with idx < 2^h and returns views that tile the input in order;
// parse_public_key of the same bytes accepts only 4 + 2n bytes with a known type code. For
// XMSS-SHA2_10_256 a parsed signature is also verified against a fixed key from the vectors
// (test/data/xmss/xmss_verify.vec, message 01020304): kOk or kVerifyFailed, never anything else.
// The input is copied into an allocation of its exact size.
#include <cstring>
#include <memory>

#include "test/fuzz/fuzz_util.h"
#include "xmss/xmss.h"

namespace {

bool within(klms::ByteView part, klms::ByteView whole) {
  return part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size();
}

const klms::Bytes& fixed_key() {
  static const klms::Bytes pk = klms::fuzz::from_hex(
      "000000012cd2895e471e32ad42cc0738550bd7028608578e1080ed05af33a72924e5e1f56d3be5fe4d5b19c52770e891dde5c35ea9dd5cc56dc685a64dc15d167ec0a70c");
  return pk;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const auto sets = klms::xmss::all_params();
  const klms::xmss::Params& p = sets[data[0] % sets.size()];
  const std::size_t len = size - 1;
  std::unique_ptr<std::uint8_t[]> copy(len ? new std::uint8_t[len] : nullptr);
  if (len) std::memcpy(copy.get(), data + 1, len);
  const klms::ByteView in(copy.get(), len);

  const auto parsed = klms::xmss::parse_signature(p, in);
  if (!parsed) {
    FUZZ_CHECK(parsed.error() == klms::Error::kMalformedSignature);
    FUZZ_CHECK(len != p.signature_bytes() ||
               (std::uint32_t{in[0]} << 24 | std::uint32_t{in[1]} << 16 | std::uint32_t{in[2]} << 8 | in[3]) >= p.leaves());
  } else {
    const klms::xmss::SignatureView& sig = *parsed;
    FUZZ_CHECK(len == p.signature_bytes());
    FUZZ_CHECK(sig.idx < p.leaves());
    FUZZ_CHECK(sig.idx == (std::uint32_t{in[0]} << 24 | std::uint32_t{in[1]} << 16 | std::uint32_t{in[2]} << 8 | in[3]));
    FUZZ_CHECK(sig.r.data() == in.data() + 4 && sig.r.size() == p.n);
    FUZZ_CHECK(sig.ots.data() == sig.r.data() + p.n && sig.ots.size() == std::size_t{p.len} * p.n);
    FUZZ_CHECK(sig.auth.data() == sig.ots.data() + sig.ots.size() && sig.auth.size() == std::size_t{p.h} * p.n);
    FUZZ_CHECK(sig.auth.data() + sig.auth.size() == in.data() + in.size());
    FUZZ_CHECK(within(sig.r, in) && within(sig.ots, in) && within(sig.auth, in));
    if (p.oid == 0x00000001) {
      const std::uint8_t msg[4] = {1, 2, 3, 4};
      const klms::Error v = klms::xmss::verify(fixed_key(), klms::ByteView(msg, 4), in);
      FUZZ_CHECK(v == klms::Error::kOk || v == klms::Error::kVerifyFailed);
    }
  }

  const auto parsed_key = klms::xmss::parse_public_key(in);
  if (parsed_key) {
    const klms::xmss::PublicKeyView& key = *parsed_key;
    FUZZ_CHECK(key.params != nullptr && len == key.params->public_key_bytes());
    FUZZ_CHECK(key.root.data() == in.data() + 4 && key.pub_seed.data() == in.data() + 4 + key.params->n);
    FUZZ_CHECK(key.root.size() == key.params->n && key.pub_seed.size() == key.params->n);
  } else {
    FUZZ_CHECK(parsed_key.error() == klms::Error::kMalformedPublicKey ||
               parsed_key.error() == klms::Error::kUnknownXmssType);
  }
  return 0;
}
