// The XMSS / XMSS^MT parameter table and wire format (xmss/params.h, xmss/wire_format.h): every set
// SP 800-208 approves with its registry code and sizes, the other RFC 8391 sets known and refused,
// and strict parsing (exact lengths, known codes, idx < 2^h, no trailing bytes).
#include <gtest/gtest.h>

#include <string>

#include "xmss/params.h"
#include "xmss/wire_format.h"

namespace klms::xmss {
namespace {

TEST(XmssTable, EverySp800208SetWithItsCode) {
  unsigned xmss = 0, mt = 0, kx = 0;
  for (const Params& p : all_params()) {
    if (p.kxmss) {
      ++kx;
      continue;
    }
    (p.scheme == Scheme::kXmss ? xmss : mt)++;
    EXPECT_EQ(find_params(p.scheme, p.oid), &p);
    EXPECT_EQ(find_params(p.name), &p);
    EXPECT_EQ(p.log_w, 4);
    EXPECT_EQ(p.pad, p.n == 32 ? 32 : 4);  // SP 800-208 §5
    EXPECT_EQ(p.h % p.d, 0);
  }
  EXPECT_EQ(xmss, 12u);  // {SHA2, SHAKE256} x {256, 192} x h {10, 16, 20}
  EXPECT_EQ(mt, 32u);    // the same hashes x 8 shapes
  EXPECT_GT(kx, 0u);
  // IANA registry codes (RFC 8391 §5.4 and SP 800-208 §5).
  EXPECT_EQ(find_params(Scheme::kXmssMt, 0x01)->name, "XMSSMT-SHA2_20/2_256");
  EXPECT_EQ(find_params(Scheme::kXmssMt, 0x08)->name, "XMSSMT-SHA2_60/12_256");
  EXPECT_EQ(find_params(Scheme::kXmssMt, 0x21)->name, "XMSSMT-SHA2_20/2_192");
  EXPECT_EQ(find_params(Scheme::kXmssMt, 0x2C)->name, "XMSSMT-SHAKE256_40/4_256");
  EXPECT_EQ(find_params(Scheme::kXmssMt, 0x38)->name, "XMSSMT-SHAKE256_60/12_192");
  EXPECT_EQ(find_params(Scheme::kXmss, 0x13)->name, "XMSS-SHAKE256_10_192");
  // Signature sizes of RFC 8391 §5.4 (the n = 32 SHA-256 sets).
  const std::pair<const char*, std::size_t> sizes[] = {
      {"XMSSMT-SHA2_20/2_256", 4963},  {"XMSSMT-SHA2_20/4_256", 9251},  {"XMSSMT-SHA2_40/2_256", 5605},
      {"XMSSMT-SHA2_40/4_256", 9893},  {"XMSSMT-SHA2_40/8_256", 18469}, {"XMSSMT-SHA2_60/3_256", 8392},
      {"XMSSMT-SHA2_60/6_256", 14824}, {"XMSSMT-SHA2_60/12_256", 27688}};
  for (const auto& [name, bytes] : sizes) EXPECT_EQ(find_params(name)->signature_bytes(), bytes) << name;
  EXPECT_EQ(find_params("xmssmt-sha2_60/12_256")->index_bytes(), 8u);
  EXPECT_EQ(find_params("XMSSMT-SHA2_40/8_256")->index_bytes(), 5u);
  EXPECT_EQ(find_params("XMSS-SHA2_20_256")->index_bytes(), 4u);
}

TEST(XmssTable, OtherRfc8391SetsAreKnownAndRefused) {
  for (const char* name : {"XMSS-SHA2_10_512", "XMSS-SHAKE_16_256", "XMSS-SHAKE_20_512", "XMSSMT-SHA2_20/2_512",
                           "XMSSMT-SHAKE_60/12_256", "XMSSMT-SHAKE_40/8_512"}) {
    EXPECT_EQ(find_params(name), nullptr) << name;
    const RefusedSet* r = find_refused(name);
    ASSERT_NE(r, nullptr) << name;
    EXPECT_FALSE(r->reason.empty());
    EXPECT_EQ(find_refused(r->scheme, r->oid), r);
    EXPECT_EQ(find_params(r->scheme, r->oid), nullptr);
  }
  EXPECT_EQ(find_refused("XMSSMT-SHAKE_20/2_256")->oid, 0x11u);
  EXPECT_EQ(find_refused("XMSS-SHAKE_10_256")->reason, "SHAKE128");
  EXPECT_EQ(refused_sets().size(), 9u + 24u);
  EXPECT_EQ(find_refused("XMSS-SHA2_10_256"), nullptr);  // approved: not refused
}

TEST(XmssWire, SchemeDecidesTheCode) {
  Bytes pk(68, 0x55);
  pk[0] = pk[1] = pk[2] = 0;
  pk[3] = 0x02;
  const auto as_xmss = parse_public_key(Scheme::kXmss, pk), as_mt = parse_public_key(Scheme::kXmssMt, pk);
  ASSERT_TRUE(as_xmss.ok() && as_mt.ok());
  EXPECT_EQ(as_xmss->params->name, "XMSS-SHA2_16_256");
  EXPECT_EQ(as_mt->params->name, "XMSSMT-SHA2_20/4_256");
  pk[3] = 0x21;  // an XMSS^MT n = 24 code: no XMSS set has it
  EXPECT_EQ(parse_public_key(Scheme::kXmss, pk).error(), Error::kUnknownXmssType);
  EXPECT_EQ(parse_public_key(Scheme::kXmssMt, pk).error(), Error::kMalformedPublicKey);  // 52 bytes expected
  pk.resize(52);
  EXPECT_TRUE(parse_public_key(Scheme::kXmssMt, pk).ok());
  pk[3] = 0x09;  // XMSSMT-SHA2_20/2_512: refused
  EXPECT_EQ(parse_public_key(Scheme::kXmssMt, pk).error(), Error::kUnknownXmssType);
}

TEST(XmssWire, XmssMtSignaturesAreStrict) {
  for (const char* name : {"XMSSMT-SHA2_20/4_256", "XMSSMT-SHA2_40/8_256", "XMSSMT-SHAKE256_60/3_192"}) {
    const Params& p = *find_params(name);
    SCOPED_TRACE(name);
    Bytes sig(p.signature_bytes(), 0);
    ASSERT_TRUE(parse_signature(p, sig).ok());
    EXPECT_EQ(parse_signature(p, Bytes(sig.begin(), sig.end() - 1)).error(), Error::kMalformedSignature);
    Bytes longer = sig;
    longer.push_back(0);
    EXPECT_EQ(parse_signature(p, longer).error(), Error::kMalformedSignature);
    EXPECT_EQ(parse_signature(p, Bytes{}).error(), Error::kMalformedSignature);
    // idx = 2^h - 1 is the last index; 2^h and above are refused where the field can hold them
    // (h = 20, 60: not h = 40, whose 5-byte field ends at 2^40 - 1).
    const std::size_t ib = p.index_bytes();
    auto put_index = [&](std::uint64_t v) {
      for (std::size_t i = ib; i > 0; --i, v >>= 8) sig[i - 1] = static_cast<std::uint8_t>(v);
    };
    put_index(p.leaves() - 1);
    const auto parsed = parse_signature(p, sig);
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(parsed->idx, p.leaves() - 1);
    if (p.h < 8 * ib) {
      put_index(p.leaves());
      EXPECT_EQ(parse_signature(p, sig).error(), Error::kMalformedSignature);
      for (std::size_t i = 0; i < ib; ++i) sig[i] = 0xFF;
      EXPECT_EQ(parse_signature(p, sig).error(), Error::kMalformedSignature);
    }
    // The fields tile the signature in order.
    sig.assign(sig.size(), 0);
    const auto tiles = parse_signature(p, sig);
    const std::uint8_t* at = sig.data() + ib + p.n;
    for (unsigned i = 0; i < p.d; ++i) {
      EXPECT_EQ(tiles->layers[i].ots.data(), at);
      at += tiles->layers[i].ots.size() + tiles->layers[i].auth.size();
    }
    EXPECT_EQ(at, sig.data() + sig.size());
    // The writer puts the index where the parser reads it.
    Bytes written(p.signature_bytes(), 0);
    const SignatureSlots slots = write_signature_frame(p, p.leaves() - 2, written.data());
    EXPECT_EQ(slots.r, written.data() + ib);
    EXPECT_EQ(parse_signature(p, written)->idx, p.leaves() - 2);
  }
}

TEST(XmssWire, ReferencePrivateKeyLengths) {
  const Params& p = *find_params("XMSSMT-SHA2_40/8_256");
  Bytes sk(4 + 5 + 4 * 32, 0);
  sk[3] = static_cast<std::uint8_t>(p.oid);
  ASSERT_TRUE(parse_reference_private_key(Scheme::kXmssMt, sk).ok());
  EXPECT_EQ(parse_reference_private_key(Scheme::kXmss, sk).error(), Error::kUnknownXmssType);  // XMSS-SHA2_16_512
  sk.push_back(0);
  EXPECT_EQ(parse_reference_private_key(Scheme::kXmssMt, sk).error(), Error::kMalformedPrivateKey);
  EXPECT_EQ(parse_reference_private_key(Scheme::kXmssMt, Bytes{0, 0}).error(), Error::kMalformedPrivateKey);
}

}  // namespace
}  // namespace klms::xmss
