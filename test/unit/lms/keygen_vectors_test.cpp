// Key generation and signing from a given SEED and I reproduce the shared vectors byte for byte:
// RFC 8554 Test Case 2 (both levels), RFC 9858 A.1–A.4, the ACVP keyGen samples, Bouncy Castle's
// depth_1 file and Botan's hss_lms_sig.vec (including its 8-level key).
#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "lms/lmots.h"
#include "lms/lms_sign.h"
#include "lms/verify.h"
#include "lms/wire_format.h"
#include "test/support/json.h"
#include "test/unit/lms/lms_test_util.h"

namespace klms::lms {
namespace {

using test::Bytes;
using test::from_hex;
using test::to_hex;

std::vector<std::map<std::string, std::string>> read_sections(std::string_view file) {
  std::vector<std::map<std::string, std::string>> sections;
  for (const std::string& raw : test::read_lines(file)) {
    const std::string_view line = test::trim(raw);
    if (line.empty() || line.front() == '#') continue;
    if (line.front() == '[') {
      sections.emplace_back();
      sections.back()["name"] = std::string(line);
      continue;
    }
    std::string k, v;
    if (!sections.empty() && test::split_key_value(line, k, v)) sections.back()[k] = v;
  }
  return sections;
}

// The global HSS index of a signature, from the q of each level.
std::uint64_t global_index(const Bytes& hss_signature) {
  const std::uint32_t levels = get_u32(hss_signature.data()) + 1;
  ByteView rest(hss_signature.data() + 4, hss_signature.size() - 4);
  std::uint64_t q = 0;
  for (std::uint32_t level = 0; level < levels; ++level) {
    std::size_t used = 0;
    auto sig = parse_lms_signature_prefix(rest, used);
    if (!sig) throw std::runtime_error("unparseable vector signature");
    q = (q << sig->params.lms->h) | sig->q;
    rest = rest.subspan(used);
    if (level + 1 < levels) {
      auto key = parse_lms_public_key_prefix(rest, used);
      if (!key) throw std::runtime_error("unparseable vector public key");
      rest = rest.subspan(used);
    }
  }
  return q;
}

TEST(KeygenVectors, Rfc8554TestCase2BothLevels) {
  const auto s = read_sections("lms/rfc8554_appendixF.txt").at(1);
  const auto levels = test::levels_from_codes({{6, 3}, {5, 4}});
  test::TempDir dir;
  auto key = test::generate_seeded(dir, levels, from_hex(s.at("top_seed")), from_hex(s.at("top_I")));
  EXPECT_EQ(to_hex(key.public_key), s.at("public_key"));

  // The second level derived below leaf 3 of the top tree is the vector's.
  const TreeKey top = top_tree_key(key.private_key);
  const TreeKey second = top.child(3, levels[1], nullptr);
  EXPECT_EQ(to_hex(second.seed.data(), 32), s.at("second_seed"));
  EXPECT_EQ(to_hex(second.hasher.identifier.data(), 16), s.at("second_I"));

  const Bytes expected = from_hex(s.at("signature"));
  ASSERT_EQ(global_index(expected), 3u * 32 + 4);
  const Bytes sig = test::sign_at(*key.signer, key.private_key.state_file, 3 * 32 + 4, from_hex(s.at("message")));
  EXPECT_EQ(to_hex(sig), s.at("signature"));
}

class Rfc9858 : public ::testing::TestWithParam<int> {};

TEST_P(Rfc9858, KeyAndSignatureReproduce) {
  const auto s = read_sections("lms/rfc9858/rfc9858_appendixA.txt").at(static_cast<std::size_t>(GetParam()));
  SCOPED_TRACE(s.at("name"));
  const Bytes pub = from_hex(s.at("public_key"));
  const Bytes expected = from_hex(s.at("signature"));
  const std::uint64_t q = std::stoull(s.at("q"));
  const auto levels = test::levels_from_codes({{get_u32(pub.data() + 4), get_u32(pub.data() + 8)}});
  test::TempDir dir;
  auto key = test::generate_seeded(dir, levels, from_hex(s.at("SEED")), from_hex(s.at("I")));
  EXPECT_EQ(to_hex(key.public_key), s.at("public_key"));
  EXPECT_EQ(to_hex(test::sign_at(*key.signer, key.private_key.state_file, q, from_hex(s.at("message")))),
            s.at("signature"));
}

INSTANTIATE_TEST_SUITE_P(A1toA3, Rfc9858, ::testing::Values(0, 1, 2));

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

// A.4 is an H20 tree: the full key generation (~10^9 compressions) runs in the optimized build;
// under the sanitizers the test reproduces the LM-OTS part of the signature from SEED and I alone
// and checks that it, with the vector's path, verifies.
TEST(KeygenVectors, Rfc9858A4H20) {
  const auto s = read_sections("lms/rfc9858/rfc9858_appendixA.txt").at(3);
  const Bytes pub = from_hex(s.at("public_key"));
  const Bytes msg = from_hex(s.at("message"));
  const Bytes expected = from_hex(s.at("signature"));
  const std::uint32_t q = static_cast<std::uint32_t>(std::stoul(s.at("q")));
  const auto levels = test::levels_from_codes({{get_u32(pub.data() + 4), get_u32(pub.data() + 8)}});

  const Bytes seed = from_hex(s.at("SEED"));
  const Bytes id = from_hex(s.at("I"));
  Identifier identifier;
  std::memcpy(identifier.data(), id.data(), 16);
  const TreeKey key = make_tree_key(levels[0], identifier, seed.data(), nullptr);
  const std::size_t n = levels[0].ots->n;
  std::uint8_t c[32], q_digest[32];
  randomizer(key, q, c);
  MessageHasher mh(key.hasher, q, c, n);
  mh.update(msg.data(), msg.size());
  mh.finish(q_digest);
  Bytes sig(4 + levels[0].signature_bytes());
  put_u32(sig.data(), 0);
  // The vector's own path; everything before it comes from SEED and I.
  const std::size_t path_bytes = std::size_t{levels[0].lms->h} * levels[0].lms->m;
  write_lms_signature(key, q, c, q_digest, expected.data() + expected.size() - path_bytes, sig.data() + 4);
  EXPECT_EQ(to_hex(sig), s.at("signature"));
  EXPECT_EQ(hss_verify(pub, msg, sig), Error::kOk);

  if (kSanitized) GTEST_SKIP() << "full H20 key generation runs in the optimized build only";
  test::TempDir dir;
  auto full = test::generate_seeded(dir, levels, seed, id);
  EXPECT_EQ(to_hex(full.public_key), s.at("public_key"));
  EXPECT_EQ(to_hex(test::sign_at(*full.signer, full.private_key.state_file, q, msg)), s.at("signature"));
}

TEST(KeygenVectors, AcvpKeyGen) {
  const auto json = test::Json::parse(test::read_text("lms/acvp/LMS-keyGen-1.0/internalProjection.json"));
  std::size_t cases = 0;
  for (const auto& group : json["testGroups"].items()) {
    const LevelParams level{find_lms(group["lmsMode"].text()), find_ots(group["lmOtsMode"].text())};
    ASSERT_NE(level.lms, nullptr) << group["lmsMode"].text();
    ASSERT_NE(level.ots, nullptr) << group["lmOtsMode"].text();
    for (const auto& t : group["tests"].items()) {
      SCOPED_TRACE(t["tcId"].text());
      test::TempDir dir;
      auto key = test::generate_seeded(dir, {level}, from_hex(t["seed"].text()), from_hex(t["i"].text()));
      // ACVP public keys are LMS keys: the HSS key without u32(L).
      EXPECT_EQ(to_hex(Bytes(key.public_key.begin() + 4, key.public_key.end())),
                to_hex(from_hex(t["publicKey"].text())));
      ++cases;
    }
  }
  EXPECT_EQ(cases, 9u);
}

struct BcEntry {
  std::vector<std::uint32_t> lms_types, ots_types;
  Bytes rand, public_key, message, signature;
};

std::vector<BcEntry> read_bc(std::string_view file) {
  std::vector<BcEntry> out;
  for (const std::string& raw : test::read_lines(file)) {
    std::string k, v;
    if (raw.empty() || raw.front() == '#' || !test::split_key_value(raw, k, v, ':')) continue;
    if (k == "Depth") out.emplace_back();
    if (out.empty()) continue;
    BcEntry& e = out.back();
    if (k == "LMType") e.lms_types.push_back(static_cast<std::uint32_t>(std::stoul(v)));
    if (k == "LMOtsType") e.ots_types.push_back(static_cast<std::uint32_t>(std::stoul(v)));
    if (k == "Rand") e.rand = from_hex(v);
    if (k == "HSSPublicKey") e.public_key = from_hex(v);
    if (k == "Message") e.message = from_hex(v);
    if (k == "Signature") e.signature = from_hex(v);
  }
  return out;
}

TEST(KeygenVectors, BouncyCastleDepth1File) {
  const auto entries = read_bc("lms/bc/depth_1.txt");
  ASSERT_EQ(entries.size(), 10u);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    SCOPED_TRACE(i);
    const BcEntry& e = entries[i];
    ASSERT_EQ(e.lms_types.size(), e.ots_types.size());
    std::vector<std::pair<std::uint32_t, std::uint32_t>> codes;
    for (std::size_t l = 0; l < e.lms_types.size(); ++l) codes.emplace_back(e.lms_types[l], e.ots_types[l]);
    const auto levels = test::levels_from_codes(codes);
    const std::size_t m = levels[0].lms->m;
    ASSERT_EQ(e.rand.size(), m + 16);
    // Rand is SEED || I.
    test::TempDir dir;
    auto key = test::generate_seeded(dir, levels, Bytes(e.rand.begin(), e.rand.begin() + static_cast<long>(m)),
                                     Bytes(e.rand.begin() + static_cast<long>(m), e.rand.end()));
    EXPECT_EQ(to_hex(key.public_key), to_hex(e.public_key));
    EXPECT_EQ(hss_verify(e.public_key, e.message, e.signature), Error::kOk);
    const Bytes sig = test::sign_at(*key.signer, key.private_key.state_file, global_index(e.signature), e.message);
    EXPECT_EQ(to_hex(sig), to_hex(e.signature));
  }
}

TEST(KeygenVectors, BotanHssSignatures) {
  struct Record {
    Bytes private_key, message, signature;
  };
  std::vector<Record> records;
  for (const std::string& raw : test::read_lines("lms/botan/hss_lms_sig.vec")) {
    std::string k, v;
    if (raw.empty() || raw.front() == '#' || !test::split_key_value(raw, k, v)) continue;
    if (k == "PrivateKey") records.push_back({from_hex(v), {}, {}});
    if (k == "Msg") records.back().message = from_hex(v);
    if (k == "Signature") records.back().signature = from_hex(v);
  }
  ASSERT_EQ(records.size(), 2u);
  for (const Record& r : records) {
    // Botan's layout: u32 L || u64 index || (u32 lms, u32 ots) x L || SEED || I.
    const std::uint32_t l = get_u32(r.private_key.data());
    const std::uint64_t index = get_u64(r.private_key.data() + 4);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> codes;
    for (std::uint32_t i = 0; i < l; ++i) {
      codes.emplace_back(get_u32(r.private_key.data() + 12 + 8 * i), get_u32(r.private_key.data() + 16 + 8 * i));
    }
    const auto levels = test::levels_from_codes(codes);
    const std::size_t off = 12 + 8 * l;
    const std::size_t m = levels[0].lms->m;
    ASSERT_EQ(r.private_key.size(), off + m + 16);
    SCOPED_TRACE("L=" + std::to_string(l) + " index=" + std::to_string(index));
    test::TempDir dir;
    auto key = test::generate_seeded(dir, levels, Bytes(r.private_key.begin() + static_cast<long>(off),
                                                        r.private_key.begin() + static_cast<long>(off + m)),
                                     Bytes(r.private_key.begin() + static_cast<long>(off + m), r.private_key.end()));
    EXPECT_EQ(hss_verify(key.public_key, r.message, r.signature), Error::kOk);
    EXPECT_EQ(global_index(r.signature), index);
    EXPECT_EQ(to_hex(test::sign_at(*key.signer, key.private_key.state_file, index, r.message)), to_hex(r.signature));
  }
}

}  // namespace
}  // namespace klms::lms
