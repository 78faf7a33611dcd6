// K-LMS known answers made outside this tree (test/data/lms/klms/hashsigs_klms.txt: cisco/hash-sigs
// over Crypto++'s LSH-256 and a Tandem-DM written from the paper over Crypto++'s ciphers; how, in
// test/data/SOURCES.md): every K-LMS hash, n = 32 and 24, L = 1 and 2. The engine verifies each
// signature, rejects it with one byte changed, and — from the same SEED and I, on every backend of
// the family this CPU runs — generates the same public key and signs at the same index to the same
// signature.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "hashes/backend.h"
#include "lms/verify.h"
#include "test/unit/lms/lms_test_util.h"

namespace klms::lms {
namespace {

using test::Bytes;
using test::from_hex;
using test::to_hex;

struct KlmsVector {
  std::string name, levels;
  Bytes seed, identifier, message, public_key, signature;
  std::uint64_t q = 0;
};

std::vector<KlmsVector> read_vectors() {
  std::vector<KlmsVector> out;
  for (const std::string& raw : test::read_lines("lms/klms/hashsigs_klms.txt")) {
    const std::string_view line = test::trim(raw);
    if (line.empty() || line.front() == '#') continue;
    if (line.front() == '[') {
      out.emplace_back();
      out.back().name = std::string(line.substr(1, line.size() - 2));
      continue;
    }
    std::string k, v;
    if (out.empty() || !test::split_key_value(line, k, v)) continue;
    KlmsVector& x = out.back();
    if (k == "levels") x.levels = v;
    if (k == "SEED") x.seed = from_hex(v);
    if (k == "I") x.identifier = from_hex(v);
    if (k == "q") x.q = std::stoull(v);
    if (k == "message") x.message = from_hex(v);
    if (k == "public_key") x.public_key = from_hex(v);
    if (k == "signature") x.signature = from_hex(v);
  }
  return out;
}

// "e0000100,e0000101 e0000100,e0000102": (LMS type, LM-OTS type) per level, top first.
std::vector<std::pair<std::uint32_t, std::uint32_t>> codes_of(const std::string& levels) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> codes;
  std::istringstream in(levels);
  std::string level;
  while (in >> level) {
    const std::size_t comma = level.find(',');
    codes.emplace_back(static_cast<std::uint32_t>(std::stoul(level.substr(0, comma), nullptr, 16)),
                       static_cast<std::uint32_t>(std::stoul(level.substr(comma + 1), nullptr, 16)));
  }
  return codes;
}

TEST(KlmsKnownAnswers, FileCoversEveryHashBothLengthsBothDepths) {
  const auto vectors = read_vectors();
  ASSERT_EQ(vectors.size(), 16u);
  std::map<std::string, int> seen;  // "family n L"
  for (const KlmsVector& v : vectors) {
    const auto levels = test::levels_from_codes(codes_of(v.levels));
    ASSERT_FALSE(levels.empty()) << v.name;
    const LevelParams& top = levels[0];
    ASSERT_NE(top.lms, nullptr);
    ++seen[std::to_string(static_cast<int>(top.lms->hash)) + " " + std::to_string(top.lms->m) + " " +
           std::to_string(levels.size())];
    EXPECT_EQ(v.seed.size(), top.lms->m) << v.name;
    EXPECT_EQ(v.identifier.size(), 16u) << v.name;
  }
  EXPECT_EQ(seen.size(), 16u) << "4 K-LMS hashes x n = 32, 24 x L = 1, 2";
}

class KlmsKnownAnswer : public ::testing::TestWithParam<std::size_t> {};

TEST_P(KlmsKnownAnswer, VerifiesAndReproducesKeyAndSignature) {
  const auto vectors = read_vectors();
  ASSERT_LT(GetParam(), vectors.size());
  const KlmsVector& v = vectors[GetParam()];
  SCOPED_TRACE(v.name);

  EXPECT_EQ(hss_verify(v.public_key, v.message, v.signature), Error::kOk);
  Bytes bad = v.signature;
  bad[bad.size() / 2] ^= 0x01;
  EXPECT_NE(hss_verify(v.public_key, v.message, bad), Error::kOk);
  Bytes other = v.message;
  other.back() ^= 0x01;
  EXPECT_NE(hss_verify(v.public_key, other, v.signature), Error::kOk);

  const auto levels = test::levels_from_codes(codes_of(v.levels));
  int backends = 0;
  for (const hashes::Backend* b : hashes::available_backends()) {
    if (b->family != levels[0].lms->hash) continue;
    ++backends;
    SCOPED_TRACE(b->name);
    test::TempDir dir;
    auto key = test::generate_seeded(dir, levels, v.seed, v.identifier, b);
    EXPECT_EQ(to_hex(key.public_key), to_hex(v.public_key));
    EXPECT_EQ(to_hex(test::sign_at(*key.signer, key.private_key.state_file, v.q, v.message)), to_hex(v.signature));
  }
  EXPECT_GE(backends, 1);
}

INSTANTIATE_TEST_SUITE_P(HashSigs, KlmsKnownAnswer, ::testing::Range<std::size_t>(0, 16),
                         [](const ::testing::TestParamInfo<std::size_t>& param) {
                           static const auto vectors = read_vectors();
                           std::string name = param.param < vectors.size() ? vectors[param.param].name : "missing";
                           for (char& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace klms::lms
