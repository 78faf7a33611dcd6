// The signer's tree store on its own, against RFC 8554 Test Case 2 (L = 2, top tree H10/W4 from
// top_seed and top_I): the top tree's root and the authentication paths and signed public key of
// the vector's signature at index 3 * 32 + 4 come out of memory, out of the cache file, and out of a
// rebuild when the cache file is damaged; a rebuild rewrites the cache.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstring>
#include <fstream>
#include <map>

#include "lms/signer.h"
#include "lms/tree_store.h"
#include "lms/wire_format.h"
#include "test/unit/lms/lms_test_util.h"

namespace klms::lms {
namespace {

using test::Bytes;
using test::from_hex;

struct TestCase2 {
  std::vector<LevelParams> levels = test::levels_from_codes({{6, 3}, {5, 4}});
  Bytes public_key, signature, seed, identifier;
  HssSignatureParts parts;
  std::uint64_t q = 3 * 32 + 4;  // the vector's signature: top leaf 3, bottom leaf 4

  TestCase2() {
    std::map<std::string, std::string> s;
    bool in_case = false;
    for (const std::string& raw : test::read_lines("lms/rfc8554_appendixF.txt")) {
      const std::string_view line = test::trim(raw);
      if (line.empty() || line.front() == '#') continue;
      if (line.front() == '[') in_case = line == "[TestCase2]";
      std::string k, v;
      if (in_case && test::split_key_value(line, k, v)) s[k] = v;
    }
    public_key = from_hex(s["public_key"]);
    signature = from_hex(s["signature"]);
    seed = from_hex(s["top_seed"]);
    identifier = from_hex(s["top_I"]);
    EXPECT_EQ(parse_hss_signature(public_key, signature, parts), Error::kOk);
  }

  TreeKey top_key() const {
    Identifier id{};
    std::memcpy(id.data(), identifier.data(), id.size());
    return make_tree_key(levels[0], id, seed.data(), nullptr);
  }
  ByteView root() const { return ByteView(public_key).last(levels[0].lms->m); }

  // A store whose top-level (re)builds are counted in `builds`.
  std::unique_ptr<TreeStore> store(const std::string& cache_path, int* builds) const {
    TreeStoreOptions options;
    options.cache_path = cache_path;
    options.build.threads = 1;
    if (builds != nullptr) {
      options.build.progress = [builds](std::uint64_t done, std::uint64_t total) {
        if (done == total) ++*builds;
        return true;
      };
    }
    return std::make_unique<TreeStore>(top_key(), levels, root(), key_id_of(public_key), options, nullptr);
  }
};

Bytes path_of(TreeStore& store, std::size_t level, const TreePtr& tree, std::uint32_t leaf) {
  Bytes out(std::size_t{tree->key.params.lms->h} * tree->key.params.lms->m);
  EXPECT_EQ(store.path(level, tree, leaf, out.data()), Error::kOk);
  return out;
}

Bytes bytes_of(ByteView v) { return Bytes(v.begin(), v.end()); }

// Zeroes `count` bytes of the file at `offset` (from the end when negative).
void damage(const std::string& path, long offset, std::size_t count) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  ASSERT_TRUE(f) << path;
  f.seekp(offset, offset < 0 ? std::ios::end : std::ios::beg);
  const std::string zeros(count, '\0');
  f.write(zeros.data(), static_cast<std::streamsize>(zeros.size()));
  ASSERT_TRUE(f);
}

TEST(TreeStore, GivesTheVectorsTreesAndPaths) {
  const TestCase2 v;
  ASSERT_EQ(v.parts.levels, 2u);
  test::TempDir dir;
  int builds = 0;
  auto store = v.store(dir.file("key.state.cache"), &builds);
  auto top = store->top_tree();
  ASSERT_TRUE(top) << static_cast<int>(top.error());
  EXPECT_EQ(builds, 1);
  EXPECT_EQ(bytes_of(ByteView((*top)->source->root(), v.levels[0].lms->m)), bytes_of(v.root()));
  EXPECT_EQ(path_of(*store, 0, *top, 3), bytes_of(v.parts.sigs[0].path));

  const HssPosition pos = hss_position(v.levels, v.q);
  auto lower = store->lower_tree(1, pos, *top);
  ASSERT_TRUE(lower);
  EXPECT_EQ((*lower)->public_key, bytes_of(v.parts.keys[1].encoded));
  // The parent's signature of the lower public key is the vector's first LMS signature.
  const ByteView first_sig = ByteView(v.signature).subspan(4, v.levels[0].signature_bytes());
  EXPECT_EQ((*lower)->parent_signature, bytes_of(first_sig));
  EXPECT_EQ(path_of(*store, 1, *lower, 4), bytes_of(v.parts.sigs[1].path));

  // A second store reads both trees from their cache files: no top-level build.
  int again = 0;
  auto cached = v.store(dir.file("key.state.cache"), &again);
  auto cached_top = cached->top_tree();
  ASSERT_TRUE(cached_top);
  EXPECT_EQ((*cached_top)->source->nodes_in_memory(), nullptr) << "read from the cache file";
  EXPECT_EQ(path_of(*cached, 0, *cached_top, 3), bytes_of(v.parts.sigs[0].path));
  auto cached_lower = cached->lower_tree(1, pos, *cached_top);
  ASSERT_TRUE(cached_lower);
  EXPECT_EQ((*cached_lower)->source->nodes_in_memory(), nullptr) << "read from the level-2 cache file";
  EXPECT_EQ((*cached_lower)->parent_signature, bytes_of(first_sig));
  EXPECT_EQ(again, 0);
}

TEST(TreeStore, ADamagedCacheHeaderIsRebuiltAndRewritten) {
  const TestCase2 v;
  test::TempDir dir;
  const std::string cache = dir.file("key.state.cache");
  ASSERT_TRUE(v.store(cache, nullptr)->top_tree());
  damage(cache, 80, 4);  // inside the root the header's MAC covers

  int builds = 0;
  auto store = v.store(cache, &builds);
  auto top = store->top_tree();
  ASSERT_TRUE(top);
  EXPECT_EQ(builds, 1) << "a cache with a bad MAC is not used";
  EXPECT_EQ(bytes_of(ByteView((*top)->source->root(), v.levels[0].lms->m)), bytes_of(v.root()));
  EXPECT_EQ(path_of(*store, 0, *top, 3), bytes_of(v.parts.sigs[0].path));

  int after = 0;
  auto reread = v.store(cache, &after);
  ASSERT_TRUE(reread->top_tree());
  EXPECT_EQ(after, 0) << "the rebuild rewrote the cache";
}

TEST(TreeStore, DamagedCacheNodesAreCaughtByThePathCheckAndRebuilt) {
  const TestCase2 v;
  test::TempDir dir;
  const std::string cache = dir.file("key.state.cache");
  ASSERT_TRUE(v.store(cache, nullptr)->top_tree());
  // Every stored node of the H10 tree (2^11 - 1 of 32 bytes at the end of the file); the header
  // and its MAC stay intact, so the file opens.
  damage(cache, -2047L * 32, 2047 * 32);

  int builds = 0;
  auto store = v.store(cache, &builds);
  auto top = store->top_tree();
  ASSERT_TRUE(top);
  EXPECT_EQ(builds, 0) << "the header is intact: the file is opened";
  EXPECT_EQ(path_of(*store, 0, *top, 3), bytes_of(v.parts.sigs[0].path));
  EXPECT_EQ(builds, 1) << "the bad path made a rebuild";
  auto current = store->top_tree();
  ASSERT_TRUE(current);
  EXPECT_NE((*current)->source->nodes_in_memory(), nullptr) << "the rebuilt tree replaced the damaged one";
}

TEST(TreeStore, ATopTreeThatIsNotThePublicKeysIsRefused) {
  const TestCase2 v;
  Bytes other_root = bytes_of(v.root());
  other_root[0] ^= 1;
  TreeStoreOptions options;
  options.build.threads = 1;
  TreeStore store(v.top_key(), v.levels, other_root, key_id_of(v.public_key), options, nullptr);
  auto top = store.top_tree();
  ASSERT_FALSE(top);
  EXPECT_EQ(top.error(), Error::kMalformedPrivateKey);
}

}  // namespace
}  // namespace klms::lms
