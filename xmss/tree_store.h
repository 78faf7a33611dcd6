// The trees of one XMSS or XMSS^MT key as its stateful signer needs them (docs/xmss.md "Tree caches"):
// per layer the tree the current index runs through, from memory (key generation's top tree), from
// its cache file (every node on disk, O(h) reads per path, each path checked against the
// authenticated root), or built with its cache file written as it grows; for a layer below the top,
// with the signature of its root by the layer above, made once and cached with the tree. A signature
// then costs one WOTS+ signature and h node reads — in a new process too. Memory: one tree of at
// most kStoredLevels levels (4 MiB at h/d = 20) while it is built or before its cache exists;
// nothing per tree once its cache is there.
//
// The layout of the layers (layer 0 at the bottom, as RFC 8391 counts them) is the engine's
// (xmss/signer.h); the cache file of each layer is named by the caller. Thread-safe (one mutex).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "base/bytes.h"
#include "base/error.h"
#include "xmss/hasher.h"
#include "xmss/key_material.h"
#include "xmss/tree.h"
#include "xmss/tree_cache.h"
#include "xmss/wire_format.h"

namespace klms::xmss {

struct TreeStoreOptions {
  // The cache file of a layer (0: the bottom); empty: that layer is not cached (kept in memory only).
  std::function<std::string(unsigned layer)> cache_path;
  BuildOptions build;  // threads and progress of (re)builds; progress is reported for the top layer only
};

class TreeStore {
 public:
  // `key` and `hasher` must outlive the store (the signer owns all three). `top_tree`: key
  // generation's top tree, or null; once its cache file opens, the file is used and the tree freed.
  TreeStore(const KeyMaterial& key, const Hasher& hasher, const CacheKeyId& key_id, TreeStoreOptions options,
            std::unique_ptr<LayerTree> top_tree);
  TreeStore(const TreeStore&) = delete;
  TreeStore& operator=(const TreeStore&) = delete;
  ~TreeStore();

  // The top tree, from memory, its cache or rebuilt; kMalformedPrivateKey when its root is not the
  // public key's (the halves of the key do not belong together).
  Error load_top_tree();
  // Fills the layers' parts of a signature at `index` whose message digest is `digest`: layer 0's
  // WOTS+ signature and path, and the cached signatures of every tree's root by the layer above.
  Error sign(std::uint64_t index, const std::uint8_t* digest, const SignatureSlots& slots);
  // Bytes of tree nodes held in memory (not the cache files).
  std::size_t memory_bytes() const;

 private:
  struct Layer;
  Error ensure(unsigned layer, std::uint64_t tree);
  Error build(unsigned layer, std::uint64_t tree, Layer& out);
  Error path(unsigned layer, std::uint32_t leaf, std::uint8_t* out);
  Error sign_root(unsigned layer, std::uint32_t leaf, const std::uint8_t* root, std::uint8_t* out);
  CacheIdentity identity(unsigned layer, std::uint64_t tree) const;
  bool open_cached(unsigned layer, std::uint64_t tree, Layer& out);

  const KeyMaterial& key_;
  const Hasher& hasher_;
  CacheKeyId key_id_{};
  TreeStoreOptions options_;
  CacheAuthenticator auth_;
  mutable std::mutex mutex_;
  std::unique_ptr<Layer[]> layers_;
};

}  // namespace klms::xmss
