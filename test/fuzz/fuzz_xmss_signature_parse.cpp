// The XMSS / XMSS^MT signature parser (xmss/wire_format.h) on arbitrary input. Byte 0 picks a
// parameter set (an index into all_params(): XMSS, XMSS^MT and K-XMSS sets), the rest is the
// candidate signature: parse_signature accepts exactly signature_bytes() with idx < 2^h (idx in
// index_bytes() big-endian bytes) and returns views that tile the input in order (idx, r, then per
// layer sig_ots and auth). For XMSS-SHA2_10_256 and XMSSMT-SHA2_20/4_256 a parsed signature is also
// verified against a fixed key from the vectors (test/data/xmss/xmss_verify.vec, message 01020304;
// test/data/xmss/reference_signatures.vec): kOk or kVerifyFailed, never anything else, and the
// streaming verifier agrees. The input is copied into an allocation of its exact size.
#include <cstring>
#include <memory>

#include "test/fuzz/fuzz_util.h"
#include "xmss/verify.h"
#include "xmss/wire_format.h"

using klms::fuzz::within;

namespace {

const klms::Bytes& fixed_xmss_key() {
  static const klms::Bytes pk = klms::fuzz::from_hex(
      "000000012cd2895e471e32ad42cc0738550bd7028608578e1080ed05af33a72924e5e1f56d3be5fe4d5b19c52770e891dde5c35ea9dd5cc56dc685a64dc15d167ec0a70c");
  return pk;
}

#include "test/fuzz/fixed_xmssmt_key.inc"  // fixed_xmssmt_key(), fixed_xmssmt_message()

std::uint64_t index_of(const std::uint8_t* p, std::size_t len) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < len; ++i) v = v << 8 | p[i];
  return v;
}

void check_verify(klms::xmss::Scheme scheme, const klms::Bytes& key, klms::ByteView message, klms::ByteView in) {
  const klms::Error v = klms::xmss::verify(scheme, key, message, in);
  FUZZ_CHECK(v == klms::Error::kOk || v == klms::Error::kVerifyFailed);
  auto stream = klms::xmss::VerifyStream::begin(scheme, key, in);
  FUZZ_CHECK(stream.ok());
  stream->update(message);
  FUZZ_CHECK(stream->finish() == v);
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
  const std::size_t ib = p.index_bytes();

  const auto parsed = klms::xmss::parse_signature(p, in);
  if (!parsed) {
    FUZZ_CHECK(parsed.error() == klms::Error::kMalformedSignature);
    FUZZ_CHECK(len != p.signature_bytes() || index_of(in.data(), ib) >= p.leaves());
    return 0;
  }
  const klms::xmss::SignatureView& sig = *parsed;
  FUZZ_CHECK(len == p.signature_bytes());
  FUZZ_CHECK(sig.idx < p.leaves());
  FUZZ_CHECK(sig.idx == index_of(in.data(), ib));
  FUZZ_CHECK(sig.r.data() == in.data() + ib && sig.r.size() == p.n);
  const std::uint8_t* at = sig.r.data() + p.n;
  for (unsigned i = 0; i < p.d; ++i) {
    const klms::xmss::LayerSignatureView& layer = sig.layers[i];
    FUZZ_CHECK(layer.ots.data() == at && layer.ots.size() == std::size_t{p.len} * p.n);
    FUZZ_CHECK(layer.auth.data() == at + layer.ots.size() && layer.auth.size() == std::size_t{p.tree_height()} * p.n);
    FUZZ_CHECK(within(layer.ots, in) && within(layer.auth, in));
    at = layer.auth.data() + layer.auth.size();
  }
  FUZZ_CHECK(at == in.data() + in.size());
  FUZZ_CHECK(within(sig.r, in));
  if (p.scheme == klms::xmss::Scheme::kXmss && p.oid == 0x00000001) {
    const std::uint8_t msg[4] = {1, 2, 3, 4};
    check_verify(p.scheme, fixed_xmss_key(), klms::ByteView(msg, 4), in);
  }
  if (p.scheme == klms::xmss::Scheme::kXmssMt && p.oid == 0x00000002) {
    check_verify(p.scheme, fixed_xmssmt_key(), fixed_xmssmt_message(), in);
  }
  return 0;
}
