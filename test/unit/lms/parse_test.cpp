// Negative tests for every parser of the engine: truncated, extended, wrong type, flipped bits.
#include <gtest/gtest.h>

#include <cstring>

#include "lms/private_key.h"
#include "lms/verify.h"
#include "lms/wire_format.h"
#include "test/unit/lms/lms_test_util.h"

namespace klms::lms {
namespace {

using test::Bytes;

HssPrivateKey sample_private_key(unsigned levels) {
  HssPrivateKey k;
  for (unsigned i = 0; i < levels; ++i) k.levels.push_back({find_lms("LMS_SHA256_M32_H5"), find_ots("LMOTS_SHA256_N32_W8")});
  for (unsigned i = 0; i < 32; ++i) k.seed.data()[i] = static_cast<std::uint8_t>(i);
  for (unsigned i = 0; i < 16; ++i) k.identifier[i] = static_cast<std::uint8_t>(0xA0 + i);
  k.seeded = true;
  k.state_file = "/var/lib/klms/key.state";
  return k;
}

TEST(PrivateKeyEncoding, RoundTrip) {
  for (unsigned levels : {1u, 2u, 8u}) {
    const HssPrivateKey k = sample_private_key(levels);
    const SecretBytes enc = encode_private_key(k);
    ASSERT_EQ(std::memcmp(enc.data(), "KLMS", 4), 0);
    auto dec = decode_private_key(ByteView(enc.data(), enc.size()));
    ASSERT_TRUE(dec) << describe(dec.error());
    EXPECT_EQ(dec->levels.size(), levels);
    EXPECT_EQ(std::memcmp(dec->seed.data(), k.seed.data(), 32), 0);
    EXPECT_EQ(dec->identifier, k.identifier);
    EXPECT_TRUE(dec->seeded);
    EXPECT_EQ(dec->state_file, k.state_file);
  }
}

TEST(PrivateKeyEncoding, RefusesTruncatedExtendedAndAltered) {
  const SecretBytes enc = encode_private_key(sample_private_key(2));
  const Bytes good(enc.begin(), enc.end());
  for (std::size_t len = 0; len < good.size(); ++len) {
    EXPECT_FALSE(decode_private_key(ByteView(good.data(), len))) << "truncated to " << len;
  }
  Bytes extended = good;
  extended.push_back(0);
  EXPECT_EQ(decode_private_key(extended).error(), Error::kMalformedPrivateKey);

  auto altered = [&](std::size_t offset, std::uint8_t value) {
    Bytes b = good;
    b[offset] = value;
    return decode_private_key(b);
  };
  EXPECT_FALSE(altered(0, 'X'));           // magic
  EXPECT_FALSE(altered(4, 2));             // version
  EXPECT_FALSE(altered(5, 0));             // L = 0
  EXPECT_FALSE(altered(5, 9));             // L = 9
  EXPECT_EQ(altered(9, 0x99).error(), Error::kUnknownLmsType);
  EXPECT_EQ(altered(13, 0x99).error(), Error::kUnknownOtsType);
  EXPECT_EQ(altered(13, 0x09).error(), Error::kParameterMismatch);  // SHAKE OTS under a SHA-256 tree
  const std::size_t flags = 6 + 16 + 32 + 16;
  EXPECT_FALSE(altered(flags, 0x02));      // unknown flag
  EXPECT_FALSE(altered(flags + 3, 'r'));   // relative path
  // Levels of different hash families cannot be generated, so they are not a valid private key.
  Bytes mixed = good;
  put_u32(mixed.data() + 14, 0x0F);  // second level LMS_SHAKE_M32_H5 ...
  put_u32(mixed.data() + 18, 0x0C);  // ... with LMOTS_SHAKE_N32_W8
  EXPECT_EQ(decode_private_key(mixed).error(), Error::kParameterMismatch);
}

TEST(PublicKeyParsing, StrictLengthsAndTypes) {
  // RFC 8554 Test Case 1's public key.
  const Bytes pub = test::from_hex(
      "00000002000000050000000461a5d57d37f5e46bfb7520806b07a1b850650e3b31fe4a773ea29a07f09cf2ea30e579f0df58ef8e298da0434cb2b878");
  ASSERT_TRUE(parse_hss_public_key(pub));
  for (std::size_t len = 0; len < pub.size(); ++len) {
    EXPECT_FALSE(parse_hss_public_key(ByteView(pub.data(), len))) << len;
  }
  Bytes extended = pub;
  extended.push_back(0);
  EXPECT_FALSE(parse_hss_public_key(extended));
  Bytes b = pub;
  put_u32(b.data(), 0);
  EXPECT_EQ(parse_hss_public_key(b).error(), Error::kBadLevels);
  put_u32(b.data(), 9);
  EXPECT_EQ(parse_hss_public_key(b).error(), Error::kBadLevels);
  b = pub;
  put_u32(b.data() + 4, 0xE0000105);
  EXPECT_EQ(parse_hss_public_key(b).error(), Error::kUnknownLmsType);
  b = pub;
  put_u32(b.data() + 8, 0x11);
  EXPECT_EQ(parse_hss_public_key(b).error(), Error::kUnknownOtsType);
  b = pub;
  put_u32(b.data() + 8, 0x05);  // N24 OTS under an M32 tree
  EXPECT_EQ(parse_hss_public_key(b).error(), Error::kParameterMismatch);
}

TEST(SignatureParsing, TruncatedExtendedAndWrongCounts) {
  const auto lines = test::read_lines("lms/rfc8554_appendixF.txt");
  Bytes pub, msg, sig;
  for (const auto& line : lines) {
    std::string k, v;
    if (!test::split_key_value(line, k, v)) continue;
    if (k == "public_key" && pub.empty()) pub = test::from_hex(v);
    if (k == "message" && msg.empty()) msg = test::from_hex(v);
    if (k == "signature" && sig.empty()) sig = test::from_hex(v);
  }
  ASSERT_EQ(hss_verify(pub, msg, sig), Error::kOk);
  for (std::size_t len = 0; len < sig.size(); len += (len < 64 || sig.size() - len < 64) ? 1 : 29) {
    EXPECT_EQ(hss_verify(pub, msg, ByteView(sig.data(), len)), Error::kMalformedSignature) << len;
  }
  Bytes extended = sig;
  extended.push_back(0);
  EXPECT_EQ(hss_verify(pub, msg, extended), Error::kMalformedSignature);
  Bytes b = sig;
  put_u32(b.data(), 0);  // Nspk must be L - 1
  EXPECT_EQ(hss_verify(pub, msg, b), Error::kMalformedSignature);
  b = sig;
  put_u32(b.data(), 0xFFFFFFFF);
  EXPECT_EQ(hss_verify(pub, msg, b), Error::kMalformedSignature);
  b = sig;
  put_u32(b.data() + 4, 32);  // q = 2^h is out of range for H5
  EXPECT_EQ(hss_verify(pub, msg, b), Error::kMalformedSignature);
  b = sig;
  put_u32(b.data() + 8, 0x12345678);  // unknown LM-OTS type
  EXPECT_EQ(hss_verify(pub, msg, b), Error::kUnknownOtsType);
}

}  // namespace
}  // namespace klms::lms
