// TreeCacheFile::open (xmss/tree_cache.h, docs/xmss.md "Tree caches") on damaged cache files,
// through one temporary file.
//
// At start-up two genuine caches of a height-5 layer tree are written with TreeCacheWriter
// (XMSSMT-SHA2_20/4_256 and XMSSMT-SHA2_20/4_192: n = 32 and 24, a 40-byte "extra"), and kept in
// memory. Each input then changes one of them:
//   byte 0, flags: bit 2 picks the n = 24 cache; bit 0 recomputes the header MAC after the changes
//                  (so the fuzzer gets past it to the field checks); bit 1 resizes the file by the
//                  signed byte 1; bits 3-7 unused;
//   byte 1:        the size change (int8);
//   byte 2:        the level of a node to read after a successful open, byte 3 its index;
//   the rest:      XORed onto the file from offset 0.
// Checks: open fails only with kCacheUnusable; an opened cache has the file's root and extra, and
// read_node gives exactly the file's bytes for the tree's nodes and false for the others.

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "test/fuzz/fuzz_file.h"
#include "test/fuzz/fuzz_util.h"
#include "xmss/keygen.h"
#include "xmss/tree_cache.h"

namespace {

using klms::ByteView;
using klms::Bytes;

constexpr std::size_t kFixedHeaderBytes = 108;  // tree_cache.cpp's layout (see tree_cache.h)
constexpr std::size_t kNodesOffset = 8192;
constexpr std::size_t kExtraBytes = 40;

struct Base {
  const klms::xmss::Params* params = nullptr;
  std::uint8_t pub_seed[32]{};
  std::uint8_t sk_prf[32]{};
  klms::xmss::Hasher hasher;
  std::unique_ptr<klms::xmss::CacheAuthenticator> auth;
  klms::xmss::CacheIdentity identity;
  Bytes file;
};

struct Fixture {
  klms::fuzz::ScratchFile file{"klms-fuzz-xcache", "tree.cache"};
  Base bases[2];
};

Fixture& fixture() {
  static Fixture* f = [] {
    auto* fx = new Fixture;
    const char* sets[2] = {"XMSSMT-SHA2_20/4_256", "XMSSMT-SHA2_20/4_192"};
    for (int i = 0; i < 2; ++i) {
      Base& b = fx->bases[i];
      b.params = klms::xmss::find_params(sets[i]);
      FUZZ_CHECK(b.params != nullptr);
      const klms::xmss::Params& p = *b.params;
      for (int k = 0; k < 32; ++k) b.pub_seed[k] = static_cast<std::uint8_t>(0x40 + k);
      for (int k = 0; k < 32; ++k) b.sk_prf[k] = static_cast<std::uint8_t>(k * 3 + i);
      auto backend = klms::xmss::backend_for_set(p, nullptr);
      FUZZ_CHECK(static_cast<bool>(backend));
      b.hasher = klms::xmss::Hasher(p, **backend, b.pub_seed);
      b.auth = std::make_unique<klms::xmss::CacheAuthenticator>(b.hasher, b.sk_prf);
      b.identity.params = b.params;
      b.identity.layer = 1;
      b.identity.tree = 3;
      for (int k = 0; k < 32; ++k) b.identity.key_id[k] = static_cast<std::uint8_t>(0xC0 ^ k);
      auto writer = klms::xmss::TreeCacheWriter::create(fx->file.path(), p);
      FUZZ_CHECK(static_cast<bool>(writer));
      const unsigned h = p.tree_height();
      for (unsigned level = 0; level <= h; ++level) {
        const std::uint32_t count = std::uint32_t{1} << (h - level);
        Bytes slots(std::size_t{count} * 32);
        for (std::size_t k = 0; k < slots.size(); ++k) slots[k] = static_cast<std::uint8_t>(k * 7 + level);
        writer->put_level(level, 0, slots.data(), count);
      }
      std::uint8_t root[32];
      for (int k = 0; k < 32; ++k) root[k] = static_cast<std::uint8_t>(0xA0 + k);
      Bytes extra;
      for (std::size_t k = 0; k < kExtraBytes; ++k) extra.push_back(static_cast<std::uint8_t>(0xE0 + k));
      FUZZ_CHECK(writer->commit(b.identity, root, extra, *b.auth) == klms::Error::kOk);
      b.file = fx->file.read();
      FUZZ_CHECK(b.file.size() == kNodesOffset + ((std::size_t{2} << h) - 1) * p.n);
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
  const std::uint8_t level = in.u8();
  const std::uint8_t index = in.u8();
  const Base& base = fx.bases[(flags >> 2) & 1];
  const unsigned n = base.params->n;
  const unsigned h = base.params->tree_height();

  Bytes file = base.file;
  const ByteView patch = in.rest();
  for (std::size_t i = 0; i < patch.size() && i < file.size(); ++i) file[i] ^= patch[i];
  if (flags & 1) {
    const std::uint32_t extra_len = klms::get_u32(file.data() + 104);
    if (kFixedHeaderBytes + std::size_t{extra_len} + 32 <= kNodesOffset) {
      std::uint8_t mac[32];
      base.auth->tag(ByteView(file.data(), kFixedHeaderBytes + extra_len), mac);
      std::memcpy(file.data() + kFixedHeaderBytes + extra_len, mac, 32);
    }
  }
  if (flags & 2) file.resize(static_cast<std::size_t>(static_cast<long>(file.size()) + delta));
  fx.file.write(file);

  auto opened = klms::xmss::TreeCacheFile::open(fx.file.path(), base.identity, *base.auth);
  if (!opened) {
    FUZZ_CHECK(opened.error() == klms::Error::kCacheUnusable);
    return 0;
  }
  FUZZ_CHECK(std::memcmp(opened->root(), file.data() + 72, 32) == 0);
  const std::uint32_t extra_len = klms::get_u32(file.data() + 104);
  FUZZ_CHECK(klms::fuzz::same_bytes(opened->extra(), ByteView(file.data() + kFixedHeaderBytes, extra_len)));
  std::uint8_t node[32];
  const bool read = opened->read_node(level, index, node);
  const bool exists = level <= h && index < (std::uint32_t{1} << (h - level));
  FUZZ_CHECK(read == exists);
  if (read) {
    const std::uint64_t r = (std::uint64_t{1} << (h - level)) + index;
    FUZZ_CHECK(std::memcmp(node, file.data() + kNodesOffset + (r - 1) * n, n) == 0);
  }
  return 0;
}
