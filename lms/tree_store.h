// The LMS trees of one HSS key as the signer needs them (docs/design.md "The tree cache file"): the
// top tree from memory (after key generation), from its cache file (checked against the public key's
// root), or rebuilt once with progress when the cache is missing or damaged; a lower level's tree
// and its public key signed by the parent built when first needed, kept in memory and in its own
// cache file, and rebuilt when used up. Shared by threads: each level has its own mutex, and a tree
// once published is never edited, only replaced. Holds no process-local state of its own: the
// signer's operations and the leases carry the process token (docs/state.md §15).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "base/error.h"
#include "lms/hss.h"
#include "lms/merkle_tree.h"
#include "lms/params.h"
#include "lms/path_source.h"
#include "lms/tree_cache.h"
#include "lms/tree_key.h"

namespace klms::lms {

// One LMS tree of the key as the signer uses it. Immutable once published; replaced, never edited.
struct LoadedTree {
  TreeKey key;
  std::uint64_t tree_number = 0;
  Bytes public_key;        // this tree's LMS public key
  Bytes parent_signature;  // lower levels: the parent's LMS signature of public_key
  std::unique_ptr<PathSource> source;  // holds no reference to `key`: this tree passes it

  bool path(std::uint32_t q, std::uint8_t* out) const { return source->path(key, q, out); }
};
using TreePtr = std::shared_ptr<const LoadedTree>;

struct TreeStoreOptions {
  std::string cache_path;  // the top level's cache file; lower levels add ".level<N>". Empty: memory only.
  const hashes::Backend* preferred_backend = nullptr;  // study runs; null = fastest
  BuildOptions build;  // threads and progress for tree (re)builds
};

class TreeStore {
 public:
  // `top_root`: the root the HSS public key names (m bytes); `key_id`: key_id_of the public key.
  // `top_tree`: the top level's nodes when the caller has them (right after key generation); they
  // are written to the cache file at once.
  TreeStore(const TreeKey& top_key, std::vector<LevelParams> levels, ByteView top_root, const CacheKeyId& key_id,
            TreeStoreOptions options, std::unique_ptr<TreeNodes> top_tree);
  TreeStore(const TreeStore&) = delete;
  TreeStore& operator=(const TreeStore&) = delete;

  const TreeKey& top_key() const noexcept { return top_key_; }
  const TreeStoreOptions& options() const noexcept { return options_; }

  // The top tree; kMalformedPrivateKey when the tree the private key makes is not the public key's.
  Result<TreePtr> top_tree();
  // The tree of `level` (>= 1) that `pos` falls in, below `parent` (the tree of level - 1 at `pos`).
  Result<TreePtr> lower_tree(std::size_t level, const HssPosition& pos, const TreePtr& parent);
  // The authentication path of `leaf` in `tree` (of `level`); when its cache proves damaged, the
  // tree is rebuilt once (same root) and replaces the damaged one.
  Error path(std::size_t level, const TreePtr& tree, std::uint32_t leaf, std::uint8_t* out);

 private:
  std::string cache_path(std::size_t level) const;
  CacheIdentity identity(std::size_t level, const LoadedTree& t) const;
  void write_cache(std::size_t level, const LoadedTree& t, const TreeNodes& nodes) const;
  void write_cache(std::size_t level, const LoadedTree& t) const;
  Result<std::shared_ptr<LoadedTree>> build_unpublished(const LoadedTree& base, bool with_progress);
  Result<TreePtr> build(std::size_t level, const LoadedTree& base, bool with_progress);
  TreePtr load(std::size_t level, const LoadedTree& base, std::size_t parent_signature_bytes);

  TreeKey top_key_;
  std::vector<LevelParams> levels_;
  Bytes top_root_;
  CacheKeyId key_id_{};
  TreeStoreOptions options_;
  CacheAuthenticator auth_;

  std::mutex level_mutex_[kMaxLevels];
  TreePtr current_[kMaxLevels];
  TreePtr previous_[kMaxLevels];
};

}  // namespace klms::lms
