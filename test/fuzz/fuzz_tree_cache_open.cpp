// TreeCacheFile::open (lms/tree_cache.h) on damaged cache files, through one temporary file.
//
// At start-up write_tree_cache writes two genuine caches of a height-5 tree (m = 32 and m = 24, with
// a 40-byte "extra"), which are kept in memory. Each input then changes one of them:
//   byte 0, flags: bit 2 picks the m = 24 cache; bit 0 recomputes the header MAC after the changes
//                  (so the fuzzer gets past it to the field checks); bit 1 resizes the file by the
//                  signed byte 1; bits 3-7 unused;
//   byte 1:        the size change (int8);
//   bytes 2-3:     u16 r of a node to read after a successful open;
//   the rest:      XORed onto the file from offset 0.
// Checks: open fails only with kCacheUnusable; an opened cache has the expected depth, root and
// extra, and read_node gives exactly the file's bytes for stored nodes and false for the others.

#include <cstdlib>
#include <string>

#include "lms/tree_cache.h"
#include "test/fuzz/fuzz_file.h"
#include "test/fuzz/fuzz_util.h"

namespace {

using klms::ByteView;
using klms::Bytes;

constexpr std::size_t kFixedHeaderBytes = 132;  // tree_cache.cpp's layout (see tree_cache.h)
constexpr std::size_t kExtraBytes = 40;

struct Base {
  klms::lms::CacheIdentity identity;
  klms::lms::TreeKey top_key;
  std::unique_ptr<klms::lms::CacheAuthenticator> auth;
  Bytes file;
  Bytes extra;
  std::uint8_t root[32];
};

struct Fixture {
  klms::fuzz::ScratchFile file{"klms-fuzz-cache", "tree.cache"};
  Base bases[2];
};

Fixture& fixture() {
  static Fixture* f = [] {
    auto* fx = new Fixture;
    const std::pair<const char*, const char*> sets[2] = {{"LMS_SHA256_M32_H5", "LMOTS_SHA256_N32_W8"},
                                                         {"LMS_SHA256_M24_H5", "LMOTS_SHA256_N24_W8"}};
    for (int i = 0; i < 2; ++i) {
      Base& b = fx->bases[i];
      const klms::lms::LevelParams params{klms::lms::find_lms(sets[i].first), klms::lms::find_ots(sets[i].second)};
      FUZZ_CHECK(params.lms != nullptr && params.ots != nullptr);
      klms::lms::Identifier id;
      std::uint8_t seed[32];
      for (int k = 0; k < 16; ++k) id[k] = static_cast<std::uint8_t>(0x40 + k);
      for (int k = 0; k < 32; ++k) seed[k] = static_cast<std::uint8_t>(k * 3 + i);
      b.top_key = klms::lms::make_tree_key(params, id, seed, nullptr);
      b.auth = std::make_unique<klms::lms::CacheAuthenticator>(b.top_key);
      b.identity.level = 1;
      b.identity.tree_number = 3;
      for (int k = 0; k < 32; ++k) b.identity.key_id[k] = static_cast<std::uint8_t>(0xC0 ^ k);
      b.identity.params = params;
      b.identity.identifier = id;
      klms::lms::TreeNodes nodes(params.lms->h, params.lms->m);
      for (std::size_t k = 0; k < nodes.bytes().size(); ++k) nodes.bytes()[k] = static_cast<std::uint8_t>(k * 7 + 1);
      std::memset(b.root, 0, sizeof b.root);
      std::memcpy(b.root, nodes.root(), params.lms->m);
      for (std::size_t k = 0; k < kExtraBytes; ++k) b.extra.push_back(static_cast<std::uint8_t>(0xE0 + k));
      FUZZ_CHECK(klms::lms::write_tree_cache(fx->file.path(), b.identity, b.root, nodes, b.extra, *b.auth) ==
                 klms::Error::kOk);
      b.file = fx->file.read();
      FUZZ_CHECK(b.file.size() > kFixedHeaderBytes + kExtraBytes + 32);
    }
    return fx;
  }();
  return *f;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Fixture& fx = fixture();
  klms::fuzz::Input in(data, size);
  const std::uint8_t flags = in.u8();
  const auto delta = static_cast<std::int8_t>(in.u8());
  const std::uint16_t r = in.u16();
  const Base& base = fx.bases[(flags >> 2) & 1];
  const unsigned m = base.identity.params.lms->m;

  Bytes file = base.file;
  const ByteView patch = in.rest();
  for (std::size_t i = 0; i < patch.size() && i < file.size(); ++i) file[i] ^= patch[i];
  if (flags & 1) {
    const std::uint32_t extra_len = klms::get_u32(file.data() + 128);
    if (extra_len <= file.size() && kFixedHeaderBytes + std::size_t{extra_len} + 32 <= file.size()) {
      std::uint8_t mac[32];
      base.auth->tag(ByteView(file.data(), kFixedHeaderBytes + extra_len), mac);
      std::memcpy(file.data() + kFixedHeaderBytes + extra_len, mac, 32);
    }
  }
  if (flags & 2) {
    const long new_size = static_cast<long>(file.size()) + delta;
    file.resize(static_cast<std::size_t>(new_size));
  }
  fx.file.write(file);

  auto opened = klms::lms::TreeCacheFile::open(fx.file.path(), base.identity, *base.auth);
  if (!opened) {
    FUZZ_CHECK(opened.error() == klms::Error::kCacheUnusable);
    return 0;
  }
  const unsigned depth = base.identity.params.lms->h;  // h = 5 < kMaxStoredDepth
  FUZZ_CHECK(opened->stored_depth() == depth);
  FUZZ_CHECK(std::memcmp(opened->root(), file.data() + 80, 32) == 0);
  const std::uint32_t extra_len = klms::get_u32(file.data() + 128);
  FUZZ_CHECK(klms::fuzz::same_bytes(opened->extra(), ByteView(file.data() + kFixedHeaderBytes, extra_len)));
  const std::uint64_t stored = (std::uint64_t{2} << depth) - 1;
  const std::uint64_t nodes_offset = file.size() - stored * m;
  std::uint8_t node[32];
  const bool read = opened->read_node(r, node);
  FUZZ_CHECK(read == (r >= 1 && r <= stored));
  if (read) FUZZ_CHECK(std::memcmp(node, file.data() + nodes_offset + (r - 1) * m, m) == 0);
  return 0;
}
