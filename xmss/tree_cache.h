// The XMSS tree cache file (docs/xmss.md "Tree caches"): every node of one tree of one layer of an
// XMSS or XMSS^MT key, and for a layer below the top the signature of the tree's root by the layer
// above. Not secret, never the index; written to a temporary file during the tree's build (the
// levels a LayerTree does not keep in memory go straight to the file, so no tree is ever whole in
// memory), fdatasync'd and renamed into place; 0600. The LMS engine's cache (lms/tree_cache.h) is the
// model: a MAC over the header keyed from the private key, nodes checked per use.
//
// Layout (big-endian): "KXMSTREE" | u32 version | u8 scheme | 3 zero bytes | u32 type code
//   | u32 layer | u64 tree | key id (32) | u32 height | u32 n | root (32, n used) | u32 extra length
//   | extra | MAC (32) | zero padding to kNodesOffset | nodes in heap order (node r at (r - 1) * n).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "base/bytes.h"
#include "base/error.h"
#include "base/secret.h"
#include "xmss/hasher.h"
#include "xmss/params.h"

namespace klms::xmss {

using CacheKeyId = std::array<std::uint8_t, 32>;

// The header's MAC: H(label || K || header) with the key's own hash, K = PRF(SK_PRF, toByte(2^64 - 1,
// 32)): the randomizer of an index no signature has (indices are below 2^60), never published.
class CacheAuthenticator {
 public:
  CacheAuthenticator(const Hasher& hasher, const std::uint8_t* sk_prf) noexcept;
  void tag(ByteView data, std::uint8_t* out32) const noexcept;

 private:
  const Hasher* hasher_;
  SecretArray<32> key_;
};

// What a cache file must be for this use.
struct CacheIdentity {
  CacheKeyId key_id{};
  // Key checks (`openssl pkey -check`) accept any key id: the MAC still proves the private key made it.
  bool any_key_id = false;
  const Params* params = nullptr;
  std::uint32_t layer = 0;
  std::uint64_t tree = 0;
};

// A cache being written: created next to its final name as `<path>.tmp.<16 hex digits>` before the
// tree is built, filled with nodes as they come (from any thread), then committed (header, sync,
// rename) or, if it is destroyed first, removed.
class TreeCacheWriter {
 public:
  // kCacheWriteFailed when the temporary file cannot be created.
  static Result<TreeCacheWriter> create(const std::string& path, const Params& params);
  TreeCacheWriter(TreeCacheWriter&& other) noexcept;
  TreeCacheWriter& operator=(TreeCacheWriter&& other) = delete;
  TreeCacheWriter(const TreeCacheWriter&) = delete;
  ~TreeCacheWriter();

  // Nodes first .. first+count-1 of `level` (0: the leaves), 32-byte slots. Thread-safe.
  void put_level(unsigned level, std::uint32_t first, const std::uint8_t* slots, std::uint32_t count) noexcept;
  // Writes the header and moves the file into place; kCacheWriteFailed if any write failed.
  Error commit(const CacheIdentity& identity, const std::uint8_t* root, ByteView extra,
               const CacheAuthenticator& auth);

 private:
  TreeCacheWriter() = default;
  int fd_ = -1;
  std::string path_, temporary_;
  unsigned height_ = 0, n_ = 0;
  bool failed_ = false;
};

// An opened, authenticated cache file. Thread-safe for reading (pread).
class TreeCacheFile {
 public:
  // kCacheUnusable when missing, short, foreign, altered or of another tree.
  static Result<TreeCacheFile> open(const std::string& path, const CacheIdentity& expected,
                                    const CacheAuthenticator& auth);
  TreeCacheFile(TreeCacheFile&& other) noexcept;
  TreeCacheFile& operator=(TreeCacheFile&& other) noexcept;
  TreeCacheFile(const TreeCacheFile&) = delete;
  ~TreeCacheFile();

  const std::uint8_t* root() const noexcept { return root_.data(); }
  ByteView extra() const noexcept { return extra_; }
  // Node `index` of `level` into out (n bytes); false on a short read.
  bool read_node(unsigned level, std::uint32_t index, std::uint8_t* out) const noexcept;

 private:
  TreeCacheFile() = default;
  int fd_ = -1;
  std::array<std::uint8_t, 32> root_{};
  Bytes extra_;
  unsigned height_ = 0, n_ = 0;
};

}  // namespace klms::xmss
