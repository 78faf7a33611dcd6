// The signer: tree cache files (load, damage, foreign), lower-level trees, streaming, leases,
// seeded keys, sharing between threads, exhaustion, and the HSS index arithmetic.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "lms/verify.h"
#include "test/unit/lms/lms_test_util.h"

namespace klms::lms {
namespace {

using test::Bytes;

std::vector<LevelParams> sha_levels(std::initializer_list<unsigned> heights, unsigned w = 8) {
  std::vector<LevelParams> levels;
  for (unsigned h : heights) levels.push_back({lms_for(HashFamily::kSha256, 32, h), ots_for(HashFamily::kSha256, 32, w)});
  return levels;
}

const Bytes kSeed(32, 0x42);
const Bytes kId(16, 0x17);
const Bytes kMessage = {'f', 'i', 'r', 'm', 'w', 'a', 'r', 'e'};

std::shared_ptr<Signer> fresh_signer(const GeneratedKey& key, const std::string& cache_path) {
  SignerOptions options;
  options.cache_path = cache_path;
  auto s = Signer::create(key.private_key, key.public_key, options);
  if (!s) throw std::runtime_error(describe(s.error()));
  return *s;
}

Bytes read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), {});
}

void write_file(const std::string& path, const Bytes& b) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

TEST(Signer, SameKeyTwiceGivesTheSameSignatures) {
  // docs/state.md §11: the randomizer is deterministic, so a seeded key regenerated with a fresh state
  // file signs index q exactly as before.
  test::TempDir a, b;
  auto ka = test::generate_seeded(a, sha_levels({5, 5}), kSeed, kId);
  auto kb = test::generate_seeded(b, sha_levels({5, 5}), kSeed, kId);
  EXPECT_EQ(ka.public_key, kb.public_key);
  for (std::uint64_t q : {0u, 7u, 40u}) {
    EXPECT_EQ(test::sign_at(*ka.signer, ka.private_key.state_file, q, kMessage),
              test::sign_at(*kb.signer, kb.private_key.state_file, q, kMessage));
  }
}

TEST(Signer, LoadsTheCacheFileAndSignsLikeTheInMemoryTree) {
  test::TempDir a, b;
  auto ka = test::generate_seeded(a, sha_levels({10}, 4), kSeed, kId);
  auto kb = test::generate_seeded(b, sha_levels({10}, 4), kSeed, kId);
  const std::string cache = kb.private_key.state_file + ".cache";
  ASSERT_TRUE(std::filesystem::exists(cache));
  EXPECT_EQ(std::filesystem::status(cache).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  const Bytes before = read_file(cache);
  auto from_file = fresh_signer(kb, cache);
  const Bytes expected = test::sign_at(*ka.signer, ka.private_key.state_file, 5, kMessage);
  EXPECT_EQ(test::sign_at(*from_file, kb.private_key.state_file, 5, kMessage), expected);
  EXPECT_EQ(read_file(cache), before);  // a good cache is used, not rewritten
}

TEST(Signer, DamagedCacheIsDetectedAndRebuilt) {
  test::TempDir a, b;
  auto ka = test::generate_seeded(a, sha_levels({10}, 4), kSeed, kId);
  auto kb = test::generate_seeded(b, sha_levels({10}, 4), kSeed, kId);
  const std::string cache = kb.private_key.state_file + ".cache";
  const Bytes good = read_file(cache);
  // Flip one byte in every node of the file: the path of any leaf runs through damage.
  Bytes damaged = good;
  for (std::size_t off = 4096; off < damaged.size(); off += 32) damaged[off] ^= 0x01;
  write_file(cache, damaged);
  auto signer = fresh_signer(kb, cache);
  const Bytes sig = test::sign_at(*signer, kb.private_key.state_file, 9, kMessage);
  EXPECT_EQ(hss_verify(kb.public_key, kMessage, sig), Error::kOk);
  EXPECT_EQ(sig, test::sign_at(*ka.signer, ka.private_key.state_file, 9, kMessage));
  EXPECT_EQ(read_file(cache), good);  // rewritten

  // A damaged header (MAC) or a truncated file is refused as a whole, and rebuilt too.
  for (std::size_t cut : {std::size_t{100}, good.size() - 1}) {
    Bytes broken = good;
    if (cut == 100) broken[cut] ^= 0x80; else broken.resize(cut);
    write_file(cache, broken);
    auto s = fresh_signer(kb, cache);
    const Bytes sig2 = test::sign_at(*s, kb.private_key.state_file, cut == 100 ? 20 : 30, kMessage);
    EXPECT_EQ(hss_verify(kb.public_key, kMessage, sig2), Error::kOk);
    EXPECT_EQ(read_file(cache), good);
  }
}

TEST(Signer, ForeignCacheIsIgnored) {
  test::TempDir a, b;
  auto ka = test::generate_seeded(a, sha_levels({5}), kSeed, kId);
  auto kb = test::generate_seeded(b, sha_levels({5}), Bytes(32, 0x43), kId);
  const std::string cache_b = kb.private_key.state_file + ".cache";
  std::filesystem::copy_file(ka.private_key.state_file + ".cache", cache_b,
                             std::filesystem::copy_options::overwrite_existing);
  auto signer = fresh_signer(kb, cache_b);
  const Bytes sig = test::sign_at(*signer, kb.private_key.state_file, 3, kMessage);
  EXPECT_EQ(hss_verify(kb.public_key, kMessage, sig), Error::kOk);
}

TEST(Signer, LowerLevelTreesAreCachedAndReplacedWhenUsedUp) {
  test::TempDir a, b;
  auto ka = test::generate_seeded(a, sha_levels({5, 5}), kSeed, kId);
  auto kb = test::generate_seeded(b, sha_levels({5, 5}), kSeed, kId);
  const std::string cache = kb.private_key.state_file + ".cache";
  Bytes first = test::sign_at(*kb.signer, kb.private_key.state_file, 31, kMessage);
  ASSERT_TRUE(std::filesystem::exists(cache + ".level2"));
  const Bytes level2_first = read_file(cache + ".level2");
  Bytes second = test::sign_at(*kb.signer, kb.private_key.state_file, 32, kMessage);  // next lower tree
  EXPECT_NE(read_file(cache + ".level2"), level2_first);
  EXPECT_EQ(hss_verify(kb.public_key, kMessage, first), Error::kOk);
  EXPECT_EQ(hss_verify(kb.public_key, kMessage, second), Error::kOk);
  // A fresh signer (another process, say) takes the lower tree from its cache file.
  auto reloaded = fresh_signer(kb, cache);
  const Bytes third = test::sign_at(*reloaded, kb.private_key.state_file, 33, kMessage);
  EXPECT_EQ(third, test::sign_at(*ka.signer, ka.private_key.state_file, 33, kMessage));
}

TEST(Signer, StreamingEqualsOneShotAndLeasesAreSingleUse) {
  test::TempDir a, b;
  auto ka = test::generate_seeded(a, sha_levels({5}), kSeed, kId);
  auto kb = test::generate_seeded(b, sha_levels({5}), kSeed, kId);
  auto ha = state::StateHandle::open(ka.private_key.state_file, key_id_of(ka.public_key), {});
  auto hb = state::StateHandle::open(kb.private_key.state_file, key_id_of(kb.public_key), {});
  ASSERT_TRUE(ha && hb);
  auto la = (*ha)->take();
  auto lb = (*hb)->take();
  ASSERT_TRUE(la && lb);
  ASSERT_EQ(la->index(), lb->index());
  const Bytes one_shot = *ka.signer->sign(std::move(*la), kMessage);
  EXPECT_FALSE(la->valid());
  auto op = kb.signer->begin(std::move(*lb));
  ASSERT_TRUE(op);
  for (std::uint8_t byte : kMessage) op->update(ByteView(&byte, 1));
  auto streamed = kb.signer->finish(std::move(*op));
  ASSERT_TRUE(streamed);
  EXPECT_EQ(*streamed, one_shot);
  // The moved-from operation and lease cannot sign again.
  EXPECT_EQ(kb.signer->finish(std::move(*op)).error(), Error::kLeaseConsumed);
  EXPECT_EQ(kb.signer->begin(std::move(*lb)).error(), Error::kLeaseConsumed);
}

TEST(Signer, SeededKeysNeedPermission) {
  test::TempDir a;
  auto k = test::generate_seeded(a, sha_levels({5}), kSeed, kId);
  auto h = state::StateHandle::open(k.private_key.state_file, key_id_of(k.public_key), {});
  ASSERT_TRUE(h);
  auto lease = (*h)->take();
  ASSERT_TRUE(lease);
  ::unsetenv("KLMS_ALLOW_SEEDED_KEYS");
  EXPECT_EQ(k.signer->sign(std::move(*lease), kMessage).error(), Error::kSeededKeyRefused);
  ::setenv("KLMS_ALLOW_SEEDED_KEYS", "1", 1);
}

TEST(Signer, SharedByThreads) {
  test::TempDir a;
  auto k = test::generate_seeded(a, sha_levels({5, 5}), kSeed, kId);
  auto h = state::StateHandle::open(k.private_key.state_file, key_id_of(k.public_key), {});
  ASSERT_TRUE(h);
  std::mutex mu;
  std::vector<Bytes> sigs;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i) {
        auto lease = (*h)->take(3);
        ASSERT_TRUE(lease);
        auto sig = k.signer->sign(std::move(*lease), kMessage);
        ASSERT_TRUE(sig);
        std::lock_guard<std::mutex> lock(mu);
        sigs.push_back(*sig);
      }
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_EQ(sigs.size(), 80u);
  std::set<std::string> distinct;
  for (const Bytes& s : sigs) distinct.insert(test::to_hex(s));
  EXPECT_EQ(distinct.size(), 80u);
  for (const Bytes& s : sigs) EXPECT_EQ(hss_verify(k.public_key, kMessage, s), Error::kOk);
}

TEST(Signer, H5KeySignsExactly32Times) {
  test::TempDir a;
  auto k = test::generate_seeded(a, sha_levels({5}), kSeed, kId);
  auto h = state::StateHandle::open(k.private_key.state_file, key_id_of(k.public_key), {});
  ASSERT_TRUE(h);
  for (int i = 0; i < 32; ++i) {
    auto lease = (*h)->take();
    ASSERT_TRUE(lease) << i;
    ASSERT_TRUE(k.signer->sign(std::move(*lease), kMessage));
  }
  EXPECT_EQ((*h)->take().error(), Error::kExhausted);
}

TEST(HssPosition, SplitsTheIndexPerLevel) {
  auto levels = sha_levels({10, 5});
  HssPosition p = hss_position(levels, 3 * 32 + 4);
  EXPECT_EQ(p.leaf[0], 3u);
  EXPECT_EQ(p.leaf[1], 4u);
  EXPECT_EQ(p.tree[0], 0u);
  EXPECT_EQ(p.tree[1], 3u);
  // 8 levels of H25: 200 bits; a 64-bit index only reaches the lower levels.
  std::vector<LevelParams> tall(8, {lms_for(HashFamily::kSha256, 32, 25), ots_for(HashFamily::kSha256, 32, 4)});
  p = hss_position(tall, ~std::uint64_t{0});
  EXPECT_EQ(p.leaf[7], (1u << 25) - 1);
  EXPECT_EQ(p.leaf[6], (1u << 25) - 1);
  EXPECT_EQ(p.leaf[5], (1u << 14) - 1);
  EXPECT_EQ(p.leaf[4], 0u);
  EXPECT_EQ(p.tree[7], ~std::uint64_t{0} >> 25);
  EXPECT_EQ(p.tree[0], 0u);
}

}  // namespace
}  // namespace klms::lms
