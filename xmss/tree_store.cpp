#include "xmss/tree_store.h"

#include <cstring>

#include "xmss/stack_wipe.h"
#include "xmss/wots.h"

namespace klms::xmss {

// The tree of one layer the signer uses now: in memory or in its cache file, never both once the
// file opened.
struct TreeStore::Layer {
  bool present = false;
  std::uint64_t tree = 0;
  std::unique_ptr<LayerTree> memory;
  std::optional<TreeCacheFile> file;
  std::array<std::uint8_t, 32> root{};
  Bytes root_signature;  // below the top: the layer above's signature of `root`
};

TreeStore::TreeStore(const KeyMaterial& key, const Hasher& hasher, const CacheKeyId& key_id, TreeStoreOptions options,
                     std::unique_ptr<LayerTree> top_tree)
    : key_(key), hasher_(hasher), key_id_(key_id), options_(std::move(options)), auth_(hasher, key.sk_prf.data()),
      layers_(std::make_unique<Layer[]>(key.params.d)) {
  if (top_tree) {
    Layer& top = layers_[key.params.d - 1u];
    std::memcpy(top.root.data(), top_tree->root(), kSlot);
    top.memory = std::move(top_tree);
    top.present = true;
  }
}

TreeStore::~TreeStore() = default;

CacheIdentity TreeStore::identity(unsigned layer, std::uint64_t tree) const {
  CacheIdentity id;
  id.key_id = key_id_;
  id.params = &key_.params;
  id.layer = layer;
  id.tree = tree;
  return id;
}

bool TreeStore::open_cached(unsigned layer, std::uint64_t tree, Layer& out) {
  const std::string path = options_.cache_path ? options_.cache_path(layer) : std::string();
  if (path.empty()) return false;
  auto file = TreeCacheFile::open(path, identity(layer, tree), auth_);
  if (!file) return false;
  const bool top = layer + 1u == key_.params.d;
  const std::size_t extra = top ? 0 : key_.params.layer_signature_bytes();
  if (file->extra().size() != extra) return false;
  out.present = true;
  out.tree = tree;
  out.memory.reset();
  std::memcpy(out.root.data(), file->root(), kSlot);
  out.root_signature.assign(file->extra().begin(), file->extra().end());
  out.file.emplace(std::move(*file));
  return true;
}

// Builds the tree with its cache file written as it grows; below the top, the layer above (already
// present for this index) signs its root first, so that the cache holds both.
Error TreeStore::build(unsigned layer, std::uint64_t tree, Layer& out) {
  const Params& p = key_.params;
  const bool top = layer + 1u == p.d;
  BuildOptions build = options_.build;
  if (!top) build.progress = nullptr;
  const std::string path = options_.cache_path ? options_.cache_path(layer) : std::string();
  std::optional<TreeCacheWriter> writer;
  if (!path.empty()) {
    if (auto w = TreeCacheWriter::create(path, p)) writer.emplace(std::move(*w));
  }
  if (writer) {
    build.unstored_levels = [&writer](unsigned level, std::uint32_t first, const std::uint8_t* nodes,
                                      std::uint32_t count) { writer->put_level(level, first, nodes, count); };
  }
  auto built = LayerTree::build(hasher_, key_.sk_seed.data(), TreeAddress{layer, tree}, build);
  if (!built) return built.error();
  Layer fresh;
  fresh.tree = tree;
  std::memcpy(fresh.root.data(), (*built)->root(), kSlot);
  if (!top) {
    const unsigned th = p.tree_height();
    fresh.root_signature.assign(p.layer_signature_bytes(), 0);
    const auto leaf = static_cast<std::uint32_t>(tree & ((std::uint64_t{1} << th) - 1));
    if (const Error e = sign_root(layer + 1u, leaf, fresh.root.data(), fresh.root_signature.data()); e != Error::kOk) {
      return e;
    }
  }
  fresh.memory = std::move(*built);
  fresh.present = true;
  if (writer) {
    const LayerTree& t = *fresh.memory;
    for (unsigned j = t.stored_from(); j <= t.height(); ++j) {
      writer->put_level(j, 0, t.level(j), std::uint32_t{1} << (t.height() - j));
    }
    // A cache that cannot be written costs speed, not correctness: the tree stays in memory.
    if (writer->commit(identity(layer, tree), fresh.root.data(), fresh.root_signature, auth_) == Error::kOk) {
      Layer cached;
      if (open_cached(layer, tree, cached) && std::memcmp(cached.root.data(), fresh.root.data(), p.n) == 0) {
        fresh = std::move(cached);
      }
    }
  }
  out = std::move(fresh);
  return Error::kOk;
}

Error TreeStore::ensure(unsigned layer, std::uint64_t tree) {
  Layer& l = layers_[layer];
  const bool top = layer + 1u == key_.params.d;
  const std::size_t n = key_.params.n;
  auto names_public_key = [&](const Layer& t) { return !top || std::memcmp(t.root.data(), key_.root.data(), n) == 0; };
  if (l.present && l.tree == tree && l.file) return Error::kOk;
  if (l.present && l.tree == tree) {
    // In memory (key generation's top tree): switch to its cache file once there is one.
    Layer cached;
    if (open_cached(layer, tree, cached) && std::memcmp(cached.root.data(), l.root.data(), n) == 0) l = std::move(cached);
    return names_public_key(l) ? Error::kOk : Error::kMalformedPrivateKey;
  }
  Layer fresh;
  if (!open_cached(layer, tree, fresh) || !names_public_key(fresh)) {
    if (const Error e = build(layer, tree, fresh); e != Error::kOk) return e;
    if (!names_public_key(fresh)) return Error::kMalformedPrivateKey;  // SK_SEED and SEED make another root
  }
  l = std::move(fresh);
  return Error::kOk;
}

Error TreeStore::path(unsigned layer, std::uint32_t leaf, std::uint8_t* out) {
  Layer& l = layers_[layer];
  const Params& p = key_.params;
  const unsigned h = p.tree_height();
  const std::size_t n = p.n;
  if (l.memory) {
    l.memory->path(hasher_, key_.sk_seed.data(), leaf, out);
    return Error::kOk;
  }
  // From the file: every node read, and the path must lead from the leaf to the authenticated root.
  bool ok = true;
  alignas(64) std::uint8_t leaf_node[kSlot] = {};
  for (unsigned j = 0; j < h && ok; ++j) ok = l.file->read_node(j, (leaf >> j) ^ 1u, out + j * n);
  ok = ok && l.file->read_node(0, leaf, leaf_node);
  if (ok) {
    alignas(64) std::uint8_t computed[kSlot];
    root_from_path(hasher_, TreeAddress{layer, l.tree}, h, leaf, leaf_node, out, computed);
    if (std::memcmp(computed, l.root.data(), n) == 0) return Error::kOk;
  }
  // A damaged cache: build the tree again (same root), which rewrites the cache, and use that.
  Layer rebuilt;
  if (const Error e = build(layer, l.tree, rebuilt); e != Error::kOk) return e;
  if (std::memcmp(rebuilt.root.data(), l.root.data(), n) != 0) return Error::kInternal;
  l = std::move(rebuilt);
  if (l.memory) {
    l.memory->path(hasher_, key_.sk_seed.data(), leaf, out);
    return Error::kOk;
  }
  for (unsigned j = 0; j < h; ++j) {
    if (!l.file->read_node(j, (leaf >> j) ^ 1u, out + j * n)) return Error::kCacheUnusable;
  }
  return Error::kOk;
}

Error TreeStore::sign_root(unsigned layer, std::uint32_t leaf, const std::uint8_t* root, std::uint8_t* out) {
  const Params& p = key_.params;
  const std::size_t n = p.n;
  alignas(64) std::uint8_t chains[kMaxLen * kSlot];
  wots_sign(hasher_, key_.sk_seed.data(), TreeAddress{layer, layers_[layer].tree}, leaf, root, chains);
  for (std::size_t i = 0; i < p.len; ++i) std::memcpy(out + i * n, chains + i * kSlot, n);
  wipe(chains, sizeof chains);  // chain values below the top are private
  return path(layer, leaf, out + std::size_t{p.len} * n);
}

Error TreeStore::load_top_tree() {
  const std::lock_guard lock(mutex_);
  const Error e = ensure(key_.params.d - 1u, 0);
  wipe_stack();
  return e;
}

Error TreeStore::sign(std::uint64_t index, const std::uint8_t* digest, const SignatureSlots& slots) {
  const Params& p = key_.params;
  if (index >= p.leaves()) return Error::kExhausted;
  const unsigned th = p.tree_height();
  const std::lock_guard lock(mutex_);
  Error e = Error::kOk;
  for (unsigned layer = p.d; layer-- > 0 && e == Error::kOk;) {
    e = ensure(layer, layer + 1u == p.d ? 0 : index >> (th * (layer + 1u)));
  }
  if (e == Error::kOk) {
    const auto leaf = static_cast<std::uint32_t>(index & ((std::uint64_t{1} << th) - 1));
    e = sign_root(0, leaf, digest, slots.layers[0]);
  }
  if (e == Error::kOk) {
    for (unsigned i = 1; i < p.d; ++i) {
      std::memcpy(slots.layers[i], layers_[i - 1].root_signature.data(), layers_[i - 1].root_signature.size());
    }
  }
  wipe_stack();  // private elements and chain values passed through the stack
  return e;
}

std::size_t TreeStore::memory_bytes() const {
  const std::lock_guard lock(mutex_);
  std::size_t total = 0;
  for (unsigned i = 0; i < key_.params.d; ++i) {
    if (layers_[i].memory) total += layers_[i].memory->memory_bytes();
    total += layers_[i].root_signature.size();
  }
  return total;
}

}  // namespace klms::xmss
