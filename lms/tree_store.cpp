#include "lms/tree_store.h"

#include <cstring>

#include "lms/lms_sign.h"

namespace klms::lms {

TreeStore::TreeStore(const TreeKey& top_key, std::vector<LevelParams> levels, ByteView top_root,
                     const CacheKeyId& key_id, TreeStoreOptions options, std::unique_ptr<TreeNodes> top_tree)
    : top_key_(top_key),
      levels_(std::move(levels)),
      top_root_(top_root.begin(), top_root.end()),
      key_id_(key_id),
      options_(std::move(options)),
      auth_(top_key_) {
  if (top_tree) {
    auto t = std::make_shared<LoadedTree>();
    t->key = top_key_;
    t->public_key = lms_public_key(t->key, top_tree->root());
    write_cache(0, *t, *top_tree);
    t->source = std::make_unique<MemoryPathSource>(std::move(*top_tree));
    current_[0] = std::move(t);
  }
}

std::string TreeStore::cache_path(std::size_t level) const {
  if (options_.cache_path.empty()) return {};
  return level == 0 ? options_.cache_path : options_.cache_path + ".level" + std::to_string(level + 1);
}

CacheIdentity TreeStore::identity(std::size_t level, const LoadedTree& t) const {
  CacheIdentity id;
  id.key_id = key_id_;
  id.level = static_cast<std::uint32_t>(level);
  id.tree_number = t.tree_number;
  id.params = levels_[level];
  id.identifier = t.key.hasher.identifier;
  return id;
}

void TreeStore::write_cache(std::size_t level, const LoadedTree& t, const TreeNodes& nodes) const {
  const std::string path = cache_path(level);
  if (path.empty()) return;
  Bytes extra = t.public_key;
  append(extra, t.parent_signature);
  // A cache that cannot be written costs speed, not correctness: the tree is rebuilt next time.
  (void)write_tree_cache(path, identity(level, t), nodes.root(), nodes, extra, auth_);
}

void TreeStore::write_cache(std::size_t level, const LoadedTree& t) const {
  if (const TreeNodes* nodes = t.source->nodes_in_memory(); nodes != nullptr) write_cache(level, t, *nodes);
}

// Builds `base`'s tree in memory (the key, public key and parent signature stay), not yet
// published and not yet cached: the caller may still complete it.
Result<std::shared_ptr<LoadedTree>> TreeStore::build_unpublished(const LoadedTree& base, bool with_progress) {
  BuildOptions build = options_.build;
  if (!with_progress) build.progress = nullptr;
  auto nodes = build_tree(base.key, build);
  if (!nodes) return nodes.error();
  auto t = std::make_shared<LoadedTree>();
  t->key = base.key;
  t->tree_number = base.tree_number;
  t->public_key = lms_public_key(t->key, nodes->root());
  t->parent_signature = base.parent_signature;
  t->source = std::make_unique<MemoryPathSource>(std::move(*nodes));
  return t;
}

// Builds `base`'s tree in memory and caches it.
Result<TreePtr> TreeStore::build(std::size_t level, const LoadedTree& base, bool with_progress) {
  auto t = build_unpublished(base, with_progress);
  if (!t) return t.error();
  write_cache(level, **t);
  return TreePtr(std::move(*t));
}

// A tree from its cache file, when the file is there, authentic, and for this very tree.
TreePtr TreeStore::load(std::size_t level, const LoadedTree& base, std::size_t parent_signature_bytes) {
  const std::string path = cache_path(level);
  if (path.empty()) return nullptr;
  auto file = TreeCacheFile::open(path, identity(level, base), auth_);
  if (!file) return nullptr;
  auto t = std::make_shared<LoadedTree>();
  t->key = base.key;
  t->tree_number = base.tree_number;
  t->public_key = lms_public_key(t->key, file->root());
  const ByteView extra = file->extra();
  if (extra.size() != t->public_key.size() + parent_signature_bytes ||
      std::memcmp(extra.data(), t->public_key.data(), t->public_key.size()) != 0) {
    return nullptr;
  }
  t->parent_signature.assign(extra.begin() + static_cast<std::ptrdiff_t>(t->public_key.size()), extra.end());
  t->source = std::make_unique<FilePathSource>(std::move(*file));
  return t;
}

Result<TreePtr> TreeStore::top_tree() {
  std::lock_guard<std::mutex> lock(level_mutex_[0]);
  if (current_[0]) return current_[0];
  LoadedTree base;
  base.key = top_key_;
  // The top tree must be the one the public key names.
  const std::size_t m = top_key_.params.lms->m;
  auto names_public_key = [&](const TreePtr& t) { return std::memcmp(t->source->root(), top_root_.data(), m) == 0; };
  TreePtr t = load(0, base, 0);
  if (!t || !names_public_key(t)) {
    auto built = build(0, base, true);
    if (!built) return built.error();
    t = *built;
    if (!names_public_key(t)) return Error::kMalformedPrivateKey;
  }
  current_[0] = t;
  return t;
}

Result<TreePtr> TreeStore::lower_tree(std::size_t level, const HssPosition& pos, const TreePtr& parent) {
  std::lock_guard<std::mutex> lock(level_mutex_[level]);
  for (const TreePtr& t : {current_[level], previous_[level]}) {
    if (t && t->tree_number == pos.tree[level]) return t;
  }
  LoadedTree base;
  base.key = parent->key.child(pos.leaf[level - 1], levels_[level], options_.preferred_backend);
  base.tree_number = pos.tree[level];
  TreePtr t = load(level, base, levels_[level - 1].signature_bytes());
  if (!t) {
    // New tree: build it, then have the parent sign its public key at the parent's leaf.
    auto built = build_unpublished(base, false);
    if (!built) return built.error();
    // Completed before it is published, so nobody else sees it change.
    std::shared_ptr<LoadedTree> signed_tree = std::move(*built);
    Bytes parent_path(std::size_t{parent->key.params.lms->h} * parent->key.params.lms->m);
    if (Error e = path(level - 1, parent, pos.leaf[level - 1], parent_path.data()); e != Error::kOk) return e;
    signed_tree->parent_signature.resize(levels_[level - 1].signature_bytes());
    lms_sign_message(parent->key, pos.leaf[level - 1], signed_tree->public_key, parent_path.data(),
                     signed_tree->parent_signature.data());
    // Cache it now that the signed public key is known.
    write_cache(level, *signed_tree);
    t = std::move(signed_tree);
  }
  previous_[level] = current_[level];
  current_[level] = t;
  return t;
}

Error TreeStore::path(std::size_t level, const TreePtr& tree, std::uint32_t leaf, std::uint8_t* out) {
  if (tree->path(leaf, out)) return Error::kOk;
  auto rebuilt = build(level, *tree, level == 0);
  if (!rebuilt) return rebuilt.error();
  const std::size_t m = tree->key.params.lms->m;
  if (std::memcmp((*rebuilt)->source->root(), tree->source->root(), m) != 0) return Error::kInternal;
  if (!(*rebuilt)->path(leaf, out)) return Error::kInternal;
  // Publish the rebuilt tree. Lock order is always from the bottom level up (a caller may hold
  // the lock of the level below this one), so this cannot deadlock.
  std::lock_guard<std::mutex> lock(level_mutex_[level]);
  if (current_[level] == tree) current_[level] = *rebuilt;
  return Error::kOk;
}

}  // namespace klms::lms
