// The signer's caches (xmss/signer.h, xmss/tree.h): every layer's tree and upper-layer signature
// built when the index enters it, bottom subtrees recomputed below the stored levels, the same
// signatures whatever is cached, and the refusals (an index past the key, a top tree or root that is
// not the key's, a cancelled build).
#include <gtest/gtest.h>

#include <vector>

#include "test/unit/xmss/xmss_test_util.h"
#include "xmss/verify.h"

namespace klms::xmss {
namespace {

const Bytes kSkSeed(32, 0x01), kSkPrf(32, 0x02), kPubSeed(32, 0x03);

TestKey key_with(const Params& p, unsigned stored_levels, unsigned threads = 0) {
  BuildOptions build;
  build.stored_levels = stored_levels;
  build.threads = threads;
  auto g = generate_key_from_seeds(p, ByteView(kSkSeed).first(p.n), ByteView(kSkPrf).first(p.n),
                                   ByteView(kPubSeed).first(p.n), build);
  EXPECT_TRUE(g.ok()) << describe(g.error());
  TestKey out;
  if (!g) return out;
  out.public_key = g->public_key;
  SignerOptions options;
  options.build = build;
  auto s = Signer::create(std::move(g->key), options, std::move(g->top_tree));
  EXPECT_TRUE(s.ok()) << describe(s.error());
  if (s) out.signer = std::move(*s);
  return out;
}

TEST(XmssSigner, XmssMtAcrossTreesOfEveryLayer) {
  const Params& p = *find_params("XMSSMT-SHA2_20/4_256");
  TestKey key = key_with(p, kStoredLevels);
  ASSERT_NE(key.signer, nullptr);
  const Bytes msg = {'m', 't'};
  // First and last leaves of bottom trees, a new tree at layers 1, 2 and 3, the key's last index.
  for (std::uint64_t idx : {0ull, 1ull, 31ull, 32ull, 1023ull, 1024ull, 32767ull, 32768ull, 0x12345ull, (1ull << 20) - 1}) {
    const auto sig = key.signer->sign(idx, msg);
    ASSERT_TRUE(sig.ok()) << describe(sig.error());
    EXPECT_EQ(sig->size(), 9251u);  // RFC 8391 §5.4: XMSSMT-SHA2_20/4_256
    EXPECT_EQ(verify(p.scheme, key.public_key, msg, *sig), Error::kOk) << idx;
  }
  // At most 4 layers' trees of 2^5 leaves and 3 layer signatures are held.
  EXPECT_LE(key.signer->memory_bytes(), 4 * 63 * 32 + 4 * (2 * 31 * 32) + 3 * p.layer_signature_bytes());
  EXPECT_EQ(key.signer->sign(1ull << 20, msg).error(), Error::kExhausted);
  EXPECT_EQ(key.signer->sign(~0ull, msg).error(), Error::kExhausted);
  EXPECT_EQ(key.signer->prepare(1ull << 20), Error::kExhausted);
}

// Paths through recomputed bottom subtrees are the paths of the whole tree: a signer that keeps only
// the top 3 levels signs exactly what one that keeps every level signs, at every kind of index.
TEST(XmssSigner, BottomSubtreesGiveTheSamePaths) {
  for (const char* name : {"XMSS-SHA2_10_256", "XMSSMT-SHAKE256_20/4_192"}) {
    const Params& p = *find_params(name);
    SCOPED_TRACE(name);
    TestKey whole = key_with(p, kStoredLevels), top3 = key_with(p, 3, 1);
    ASSERT_NE(whole.signer, nullptr);
    ASSERT_NE(top3.signer, nullptr);
    ASSERT_EQ(whole.public_key, top3.public_key);
    const Bytes msg = {1, 2, 3};
    for (std::uint64_t idx : {0ull, 3ull, 4ull, 127ull, 128ull, 129ull, 600ull, 1023ull, 1024ull, 40000ull, 600ull}) {
      if (idx >= p.leaves()) continue;
      const auto a = whole.signer->sign(idx, msg), b = top3.signer->sign(idx, msg);
      ASSERT_TRUE(a.ok() && b.ok());
      EXPECT_EQ(*a, *b) << idx;
      EXPECT_EQ(verify(p.scheme, top3.public_key, msg, *b), Error::kOk) << idx;
    }
    EXPECT_LT(top3.signer->memory_bytes(), whole.signer->memory_bytes());
  }
}

TEST(XmssSigner, SameKeyOnOneOrTwoThreadsAndStreaming) {
  const Params& p = *find_params("XMSS-SHA2_10_192");
  TestKey one = key_with(p, kStoredLevels, 1), two = key_with(p, kStoredLevels, 2);
  ASSERT_EQ(one.public_key, two.public_key);
  const Bytes msg(3000, 0x42);
  auto op = one.signer->begin(77);
  ASSERT_TRUE(op.ok());
  op->update(ByteView(msg).first(1000));
  op->update(ByteView(msg).subspan(1000));
  const auto streamed = one.signer->finish(std::move(*op));
  ASSERT_TRUE(streamed.ok());
  EXPECT_EQ(*streamed, *two.signer->sign(77, msg));
  auto v = VerifyStream::begin(p.scheme, one.public_key, *streamed);
  ASSERT_TRUE(v.ok());
  v->update(ByteView(msg).first(1));
  v->update(ByteView(msg).subspan(1));
  EXPECT_EQ(v->finish(), Error::kOk);
  EXPECT_EQ(v->finish(), Error::kVerifyFailed);  // once
  auto w = VerifyStream::begin(p.scheme, one.public_key, *streamed);
  ASSERT_TRUE(w.ok());
  w->update(ByteView(msg).first(2999));
  EXPECT_EQ(w->finish(), Error::kVerifyFailed);
}

TEST(XmssSigner, RefusesATopTreeOrRootThatIsNotTheKeys) {
  const Params& p = *find_params("XMSSMT-SHA2_20/4_256");
  auto a = generate_key(p, BuildOptions{});
  auto b = generate_key(p, BuildOptions{});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(Signer::create(a->key, SignerOptions{}, std::move(b->top_tree)).error(), Error::kMalformedPrivateKey);
  KeyMaterial wrong_root = a->key;
  wrong_root.root[0] ^= 1;
  auto s = Signer::create(wrong_root, SignerOptions{});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s)->load_top_tree(), Error::kMalformedPrivateKey);
  EXPECT_EQ((*s)->sign(0, Bytes{1}).error(), Error::kMalformedPrivateKey);
  // Without a top tree, the signer builds it and signs what the key's own signer signs.
  auto fresh = Signer::create(a->key, SignerOptions{});
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ((*fresh)->load_top_tree(), Error::kOk);
  const auto sig = (*fresh)->sign(40000, Bytes{9});
  ASSERT_TRUE(sig.ok());
  EXPECT_EQ(verify(p.scheme, a->public_key, Bytes{9}, *sig), Error::kOk);
  // A backend of another family is refused.
  SignerOptions lsh;
  lsh.backend = &hashes::fastest_backend(HashFamily::kLsh256);
  EXPECT_EQ(Signer::create(a->key, lsh).error(), Error::kBackendMismatch);
}

TEST(XmssSigner, ProgressFromZeroToTotalAndCancel) {
  const Params& p = *find_params("XMSS-SHAKE256_10_256");
  std::vector<std::pair<std::uint64_t, std::uint64_t>> calls;
  BuildOptions build;
  build.report_from_leaves = 0;
  build.progress = [&](std::uint64_t done, std::uint64_t total) {
    calls.emplace_back(done, total);
    return true;
  };
  ASSERT_TRUE(generate_key(p, build).ok());
  ASSERT_GE(calls.size(), 2u);
  EXPECT_EQ(calls.front(), std::make_pair(std::uint64_t{0}, std::uint64_t{1024}));
  EXPECT_EQ(calls.back(), std::make_pair(std::uint64_t{1024}, std::uint64_t{1024}));
  for (std::size_t i = 1; i < calls.size(); ++i) EXPECT_LE(calls[i - 1].first, calls[i].first);
  unsigned asked = 0;
  build.progress = [&](std::uint64_t, std::uint64_t) { return ++asked < 2; };
  EXPECT_EQ(generate_key(p, build).error(), Error::kCancelled);
}

}  // namespace
}  // namespace klms::xmss
