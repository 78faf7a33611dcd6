// The check values of docs/primitives.md (CHAM, LEA, ARIA), written out here, and properties of the ARIA tables.
#include <gtest/gtest.h>

#include <cstdint>

#include "hashes/blockcipher/aria.h"
#include "hashes/blockcipher/cham.h"
#include "hashes/blockcipher/lea.h"
#include "test/support/test_data.h"

namespace klms::hashes {
namespace {

using test::Bytes;
using test::from_hex;
using test::to_hex;
using words::load_le32;
using words::store_le32;

TEST(ChamCheckValues, PaperVectorRevised120Rounds) {
  const Bytes key = from_hex("000102030405060708090a0b0c0d0e0ff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff");
  const Bytes pt = from_hex("00112233445566778899aabbccddeeff");
  cham::RoundKeys keys;
  cham::expand_key(key.data(), keys);
  std::uint8_t ct[16];
  cham::encrypt(keys, pt.data(), ct);
  EXPECT_EQ(to_hex(ct, 16), "dc77730251560b12959b838f75c05e5e");
  EXPECT_NE(to_hex(ct, 16), "a0c899a85cd529c9380d67abc87a4f0c");  // the 96-round 2017 answer
}

TEST(ChamCheckValues, WordInterfaceMatchesByteInterface) {
  // Words as the fact sheet gives them: 027377dc 120b5651 8f839b95 5e5ec075.
  const std::uint32_t key[8] = {0x03020100, 0x07060504, 0x0b0a0908, 0x0f0e0d0c,
                                0xf3f2f1f0, 0xf7f6f5f4, 0xfbfaf9f8, 0xfffefdfc};
  std::uint32_t x[4] = {0x33221100, 0x77665544, 0xbbaa9988, 0xffeeddcc};
  std::uint32_t rk[cham::kRoundKeyWords];
  cham::expand_key_words(key, rk);
  cham::encrypt_words(rk, x);
  EXPECT_EQ(x[0], 0x027377dcu);
  EXPECT_EQ(x[1], 0x120b5651u);
  EXPECT_EQ(x[2], 0x8f839b95u);
  EXPECT_EQ(x[3], 0x5e5ec075u);
}

std::string lea_encrypt(const Bytes& key, const Bytes& pt) {
  lea::RoundKeys keys{};
  if (key.size() == 16) lea::expand_key128(key.data(), keys);
  if (key.size() == 24) lea::expand_key192(key.data(), keys);
  if (key.size() == 32) lea::expand_key256(key.data(), keys);
  std::uint8_t ct[16];
  lea::encrypt(keys, pt.data(), ct);
  return to_hex(ct, 16);
}

TEST(LeaCheckValues, KsX3246AppendixA) {
  EXPECT_EQ(lea_encrypt(from_hex("0f1e2d3c4b5a69788796a5b4c3d2e1f0"), from_hex("101112131415161718191a1b1c1d1e1f")),
            "9fc84e3528c6c6185532c7a704648bfd");
  EXPECT_EQ(lea_encrypt(from_hex("0f1e2d3c4b5a69788796a5b4c3d2e1f0f0e1d2c3b4a59687"),
                        from_hex("202122232425262728292a2b2c2d2e2f")),
            "6fb95e325aad1b878cdcf5357674c6f2");
  EXPECT_EQ(lea_encrypt(from_hex("0f1e2d3c4b5a69788796a5b4c3d2e1f0f0e1d2c3b4a5968778695a4b3c2d1e0f"),
                        from_hex("303132333435363738393a3b3c3d3e3f")),
            "d651aff647b189c13a8900ca27f9e197");
}

TEST(LeaCheckValues, FusedLea256MatchesScheduleThenEncrypt) {
  const Bytes key = from_hex("0f1e2d3c4b5a69788796a5b4c3d2e1f0f0e1d2c3b4a5968778695a4b3c2d1e0f");
  std::uint32_t words[8], x[4];
  for (int i = 0; i < 8; ++i) words[i] = load_le32(key.data() + 4 * i);
  const Bytes pt = from_hex("303132333435363738393a3b3c3d3e3f");
  for (int i = 0; i < 4; ++i) x[i] = load_le32(pt.data() + 4 * i);
  lea::encrypt256_words(words, x);
  std::uint8_t ct[16];
  for (int i = 0; i < 4; ++i) store_le32(ct + 4 * i, x[i]);
  EXPECT_EQ(to_hex(ct, 16), "d651aff647b189c13a8900ca27f9e197");
}

TEST(AriaCheckValues, Rfc5794A3) {
  const Bytes key = from_hex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
  const Bytes pt = from_hex("00112233445566778899aabbccddeeff");
  aria::RoundKeys keys{};
  aria::expand_key256(key.data(), keys);
  std::uint8_t ct[16];
  aria::encrypt(keys, pt.data(), ct);
  EXPECT_EQ(to_hex(ct, 16), "f92bd7c79fb72e2f2b8f80c1972d24fc");
}

TEST(AriaTables, SBoxesMatchRfc5794Rows) {
  // First rows of the four S-box tables printed in RFC 5794 section 2.4.2.
  const auto& s = aria::kSBoxes;
  EXPECT_EQ(to_hex(s.sb1.data(), 16), "637c777bf26b6fc53001672bfed7ab76");
  EXPECT_EQ(to_hex(s.sb2.data(), 16), "e24e54fc94c24acc620d6a463c4d8bd1");
  EXPECT_EQ(to_hex(s.sb3.data(), 16), "52096ad53036a538bf40a39e81f3d7fb");
  EXPECT_EQ(to_hex(s.sb4.data(), 16), "3068991b87b921785039dbe17209623c");
  for (int v = 0; v < 256; ++v) {
    EXPECT_EQ(s.sb3[s.sb1[v]], v);
    EXPECT_EQ(s.sb4[s.sb2[v]], v);
  }
}

}  // namespace
}  // namespace klms::hashes
