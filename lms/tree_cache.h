// The tree cache file (docs/design.md "The tree cache file"): precomputed Merkle nodes of one LMS tree of an HSS
// key, and for a lower level the tree's public key signed by its parent. Not secret, never holds the
// index; written to a temporary file and renamed into place; 0600.
//
// Integrity: the header (key identity, level, tree number, parameter sets, I, root, and the signed
// public key) carries a MAC keyed from the key's SEED, so a foreign or altered cache is refused; the
// nodes are checked per use — every authentication path read from the file must recompute to the
// root — so opening a 64 MiB cache reads one header, and a signature reads O(h) nodes.
//
// Layout (big-endian): "KLMSTREE" | u32 version | u32 level | u64 tree number | key id (32)
//   | u32 lms type | u32 ots type | I (16) | root (32) | u32 stored depth | u32 m | u64 node count
//   | u32 extra length | extra | MAC (32) | zero padding to a 4 KiB boundary | nodes, heap order.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "base/bytes.h"
#include "base/error.h"
#include "lms/merkle_tree.h"
#include "base/secret.h"
#include "lms/tree_key.h"

namespace klms::lms {

using CacheKeyId = std::array<std::uint8_t, 32>;

// Authenticates cache headers of one HSS key; derived from the top level's SEED with a PRF index
// no signature uses (q = 2^32 - 1 is beyond every leaf).
class CacheAuthenticator {
 public:
  explicit CacheAuthenticator(const TreeKey& top_key) noexcept;
  void tag(ByteView data, std::uint8_t* out32) const noexcept;
  std::size_t tag_bytes() const noexcept { return m_; }

 private:
  TreeHasher hasher_;
  SecretArray<32> key_;
  std::size_t m_;
};

// What a cache file must be for this use.
struct CacheIdentity {
  CacheKeyId key_id{};
  // Key checks (`openssl pkey -check`) accept a cache of any public key id: the MAC, keyed from
  // SEED, still proves it was made from this private key, and its root is then compared.
  bool any_key_id = false;
  std::uint32_t level = 0;
  std::uint64_t tree_number = 0;
  LevelParams params;
  Identifier identifier{};
};

Error write_tree_cache(const std::string& path, const CacheIdentity& identity, const std::uint8_t* root,
                       const TreeNodes& nodes, ByteView extra, const CacheAuthenticator& auth);

// An opened, authenticated cache file. Thread-safe for reading (pread).
class TreeCacheFile {
 public:
  // kCacheUnusable when missing, short, foreign, altered or of other parameters.
  static Result<TreeCacheFile> open(const std::string& path, const CacheIdentity& expected,
                                    const CacheAuthenticator& auth);
  TreeCacheFile(TreeCacheFile&& other) noexcept;
  TreeCacheFile& operator=(TreeCacheFile&& other) noexcept;
  ~TreeCacheFile();

  const std::uint8_t* root() const noexcept { return root_.data(); }
  ByteView extra() const noexcept { return extra_; }
  unsigned stored_depth() const noexcept { return stored_depth_; }
  // Node r (heap order, within the stored depth) into out; false on a short read.
  bool read_node(std::uint64_t r, std::uint8_t* out) const noexcept;

 private:
  TreeCacheFile() = default;
  int fd_ = -1;
  std::array<std::uint8_t, 32> root_{};
  Bytes extra_;
  unsigned stored_depth_ = 0;
  unsigned m_ = 0;
  std::uint64_t nodes_offset_ = 0;
};

}  // namespace klms::lms
