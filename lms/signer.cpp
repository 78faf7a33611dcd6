#include "lms/signer.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

#include "klms/klms.h"
#include "lms/lmots.h"
#include "lms/lms_sign.h"
#include "lms/wire_format.h"
#include "lms/path_source.h"
#include "base/process_token.h"
#include "lms/tree_cache.h"

namespace klms::lms {
namespace {

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

}  // namespace

bool seeded_keys_allowed() noexcept {
  const char* v = std::getenv(KLMS_ENV_ALLOW_SEEDED_KEYS);
  return v != nullptr && std::strcmp(v, "1") == 0;
}

std::array<std::uint8_t, 32> key_id_of(ByteView hss_public_key) noexcept {
  std::array<std::uint8_t, 32> id{};
  hashes::sha256_digest(hss_public_key.data(), hss_public_key.size(), id.data());
  return id;
}

std::array<std::uint8_t, 32> levels_digest_of(const std::vector<LevelParams>& levels) noexcept {
  static constexpr char kLabel[] = "KLMS levels";
  std::uint8_t input[sizeof kLabel - 1 + 4 + 8 * kMaxLevels];
  std::size_t len = 0;
  std::memcpy(input, kLabel, sizeof kLabel - 1);
  len += sizeof kLabel - 1;
  auto put = [&](std::uint32_t v) {
    put_u32(input + len, v);
    len += 4;
  };
  const std::size_t count = levels.size() < kMaxLevels ? levels.size() : kMaxLevels;
  put(static_cast<std::uint32_t>(levels.size()));
  for (std::size_t i = 0; i < count; ++i) {
    put(levels[i].lms->code);
    put(levels[i].ots->code);
  }
  std::array<std::uint8_t, 32> digest{};
  hashes::sha256_digest(input, len, digest.data());
  return digest;
}

struct Signer::Impl {
  HssPrivateKey key;
  Bytes public_key;
  CacheKeyId key_id{};
  SignerOptions options;
  TreeKey top_key;
  std::unique_ptr<CacheAuthenticator> auth;
  std::uint64_t max_signatures = 0;
  std::size_t signature_bytes = 0;

  std::mutex level_mutex[kMaxLevels];
  TreePtr current[kMaxLevels];
  TreePtr previous[kMaxLevels];

  std::string cache_path(std::size_t level) const {
    if (options.cache_path.empty()) return {};
    return level == 0 ? options.cache_path : options.cache_path + ".level" + std::to_string(level + 1);
  }

  CacheIdentity identity(std::size_t level, const LoadedTree& t) const {
    CacheIdentity id;
    id.key_id = key_id;
    id.level = static_cast<std::uint32_t>(level);
    id.tree_number = t.tree_number;
    id.params = key.levels[level];
    id.identifier = t.key.hasher.identifier;
    return id;
  }

  void write_cache(std::size_t level, const LoadedTree& t, const TreeNodes& nodes) const {
    const std::string path = cache_path(level);
    if (path.empty()) return;
    Bytes extra = t.public_key;
    append(extra, t.parent_signature);
    // A cache that cannot be written costs speed, not correctness: the tree is rebuilt next time.
    (void)write_tree_cache(path, identity(level, t), nodes.root(), nodes, extra, *auth);
  }

  // Builds `base`'s tree in memory (the key, public key and parent signature stay), not yet
  // published and not yet cached: the caller may still complete it.
  Result<std::shared_ptr<LoadedTree>> build_unpublished(const LoadedTree& base, bool with_progress) {
    BuildOptions build = options.build;
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

  void write_cache(std::size_t level, const LoadedTree& t) const {
    if (const TreeNodes* nodes = t.source->nodes_in_memory(); nodes != nullptr) write_cache(level, t, *nodes);
  }

  // Builds `base`'s tree in memory and caches it.
  Result<TreePtr> build(std::size_t level, const LoadedTree& base, bool with_progress) {
    auto t = build_unpublished(base, with_progress);
    if (!t) return t.error();
    write_cache(level, **t);
    return TreePtr(std::move(*t));
  }

  // A tree from its cache file, when the file is there, authentic, and for this very tree.
  TreePtr load(std::size_t level, const LoadedTree& base, std::size_t parent_signature_bytes) {
    const std::string path = cache_path(level);
    if (path.empty()) return nullptr;
    auto file = TreeCacheFile::open(path, identity(level, base), *auth);
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

  Result<TreePtr> top_tree() {
    std::lock_guard<std::mutex> lock(level_mutex[0]);
    if (current[0]) return current[0];
    LoadedTree base;
    base.key = top_key;
    // The top tree must be the one the public key names.
    const std::size_t m = top_key.params.lms->m;
    auto names_public_key = [&](const TreePtr& t) {
      return std::memcmp(t->source->root(), public_key.data() + public_key.size() - m, m) == 0;
    };
    TreePtr t = load(0, base, 0);
    if (!t || !names_public_key(t)) {
      auto built = build(0, base, true);
      if (!built) return built.error();
      t = *built;
      if (!names_public_key(t)) return Error::kMalformedPrivateKey;
    }
    current[0] = t;
    return t;
  }

  Result<TreePtr> lower_tree(std::size_t level, const HssPosition& pos, const TreePtr& parent) {
    std::lock_guard<std::mutex> lock(level_mutex[level]);
    for (const TreePtr& t : {current[level], previous[level]}) {
      if (t && t->tree_number == pos.tree[level]) return t;
    }
    LoadedTree base;
    base.key = parent->key.child(pos.leaf[level - 1], key.levels[level], options.preferred_backend);
    base.tree_number = pos.tree[level];
    TreePtr t = load(level, base, key.levels[level - 1].signature_bytes());
    if (!t) {
      // New tree: build it, then have the parent sign its public key at the parent's leaf.
      auto built = build_unpublished(base, false);
      if (!built) return built.error();
      // Completed before it is published, so nobody else sees it change.
      std::shared_ptr<LoadedTree> signed_tree = std::move(*built);
      Bytes path(std::size_t{parent->key.params.lms->h} * parent->key.params.lms->m);
      if (Error e = parent_path(level - 1, parent, pos.leaf[level - 1], path.data()); e != Error::kOk) return e;
      signed_tree->parent_signature.resize(key.levels[level - 1].signature_bytes());
      lms_sign_message(parent->key, pos.leaf[level - 1], signed_tree->public_key, path.data(),
                       signed_tree->parent_signature.data());
      // Cache it now that the signed public key is known.
      write_cache(level, *signed_tree);
      t = std::move(signed_tree);
    }
    previous[level] = current[level];
    current[level] = t;
    return t;
  }

  // A path from `tree`; when its cache proves damaged, the tree is rebuilt once (same root) and
  // replaces the damaged one.
  Error parent_path(std::size_t level, const TreePtr& tree, std::uint32_t leaf, std::uint8_t* out) {
    if (tree->path(leaf, out)) return Error::kOk;
    auto rebuilt = build(level, *tree, level == 0);
    if (!rebuilt) return rebuilt.error();
    const std::size_t m = tree->key.params.lms->m;
    if (std::memcmp((*rebuilt)->source->root(), tree->source->root(), m) != 0) return Error::kInternal;
    if (!(*rebuilt)->path(leaf, out)) return Error::kInternal;
    // Publish the rebuilt tree. Lock order is always from the bottom level up (a caller may hold
    // the lock of the level below this one), so this cannot deadlock.
    std::lock_guard<std::mutex> lock(level_mutex[level]);
    if (current[level] == tree) current[level] = *rebuilt;
    return Error::kOk;
  }
};

struct Signer::Operation::State {
  std::uint64_t owner = process_token();  // the process that began it
  std::uint64_t q = 0;
  HssPosition position;
  TreeKey bottom_key;
  std::uint8_t randomizer[32] = {};
  std::unique_ptr<MessageHasher> message;
  bool finished = false;
};

Signer::Operation::Operation(std::unique_ptr<State> state) noexcept : state_(std::move(state)) {}
Signer::Operation::Operation(Operation&&) noexcept = default;
Signer::Operation& Signer::Operation::operator=(Operation&&) noexcept = default;
Signer::Operation::~Operation() = default;

bool Signer::Operation::owned_by_this_process() const noexcept {
  return state_ && state_->owner == process_token();
}

Error Signer::Operation::update(ByteView data) noexcept {
  if (!state_ || state_->finished) return Error::kLeaseConsumed;
  if (state_->owner != process_token()) return Error::kForeignProcess;
  state_->message->update(data.data(), data.size());
  return Error::kOk;
}

Signer::Signer(std::unique_ptr<Impl> impl) noexcept : impl_(std::move(impl)) {}
Signer::~Signer() = default;

Result<std::shared_ptr<Signer>> Signer::create(HssPrivateKey key, Bytes hss_public_key, SignerOptions options,
                                               std::unique_ptr<TreeNodes> top_tree) {
  if (Error e = check_generation_levels(key.levels); e != Error::kOk) return e;
  // The public key must be this private key's: its L, its top level's sets and I (the root is
  // checked against the top tree before an index is reserved, load_top_tree).
  auto named = parse_hss_public_key(hss_public_key);
  if (!named || named->levels != key.levels.size() || named->top.params.lms != key.levels.front().lms ||
      named->top.params.ots != key.levels.front().ots ||
      std::memcmp(named->top.identifier.data(), key.identifier.data(), kIdentifierBytes) != 0) {
    return Error::kMalformedPrivateKey;
  }
  auto impl = std::make_unique<Impl>();
  impl->top_key = top_tree_key(key, options.preferred_backend);
  impl->auth = std::make_unique<CacheAuthenticator>(impl->top_key);
  impl->key_id = key_id_of(hss_public_key);
  impl->max_signatures = max_signatures(key.levels);
  impl->signature_bytes = hss_signature_bytes(key.levels);
  impl->key = std::move(key);
  impl->public_key = std::move(hss_public_key);
  impl->options = std::move(options);
  if (top_tree) {
    auto t = std::make_shared<LoadedTree>();
    t->key = impl->top_key;
    t->public_key = lms_public_key(t->key, top_tree->root());
    impl->write_cache(0, *t, *top_tree);
    t->source = std::make_unique<MemoryPathSource>(std::move(*top_tree));
    impl->current[0] = std::move(t);
  }
  return std::shared_ptr<Signer>(new Signer(std::move(impl)));
}

Result<Signer::Operation> Signer::begin(state::IndexLease&& lease) {
  if (!lease.valid()) return Error::kLeaseConsumed;
  if (!lease.owned_by_this_process()) {
    lease.consume();  // spent either way: the process that reserved it may sign with its own copy
    return Error::kForeignProcess;
  }
  const std::uint64_t q = lease.consume();
  Impl& s = *impl_;
  if (q >= s.max_signatures) return Error::kExhausted;
  if (s.key.seeded && !seeded_keys_allowed()) return Error::kSeededKeyRefused;
  auto state = std::make_unique<Operation::State>();
  state->q = q;
  state->position = hss_position(s.key.levels, q);
  state->bottom_key = s.top_key;
  for (std::size_t level = 1; level < s.key.levels.size(); ++level) {
    state->bottom_key = state->bottom_key.child(state->position.leaf[level - 1], s.key.levels[level],
                                                s.options.preferred_backend);
  }
  const std::uint32_t leaf = state->position.leaf[s.key.levels.size() - 1];
  randomizer(state->bottom_key, leaf, state->randomizer);
  state->message = std::make_unique<MessageHasher>(state->bottom_key.hasher, leaf, state->randomizer,
                                                   state->bottom_key.params.ots->n);
  return Operation(std::move(state));
}

Result<Bytes> Signer::finish(Operation&& operation) {
  auto* state = operation.state_.get();
  if (state == nullptr || state->finished) return Error::kLeaseConsumed;
  if (state->owner != process_token()) return Error::kForeignProcess;
  state->finished = true;
  Impl& s = *impl_;
  const std::size_t levels = s.key.levels.size();

  TreePtr trees[kMaxLevels];
  auto top = s.top_tree();
  if (!top) return top.error();
  trees[0] = *top;
  for (std::size_t level = 1; level < levels; ++level) {
    auto t = s.lower_tree(level, state->position, trees[level - 1]);
    if (!t) return t.error();
    trees[level] = *t;
  }

  SignedPublicKey signed_keys[kMaxLevels];
  for (std::size_t level = 1; level < levels; ++level) {
    signed_keys[level - 1] = {trees[level]->parent_signature, trees[level]->public_key};
  }
  Bytes out(s.signature_bytes);
  auto bottom_slot = write_hss_signature_head(std::span<const SignedPublicKey>(signed_keys, levels - 1), out);
  if (!bottom_slot) return bottom_slot.error();
  const LoadedTree& bottom = *trees[levels - 1];
  if (bottom_slot->size() != bottom.key.params.signature_bytes()) return Error::kInternal;
  const std::uint32_t leaf = state->position.leaf[levels - 1];
  Bytes path(std::size_t{bottom.key.params.lms->h} * bottom.key.params.lms->m);
  if (Error e = s.parent_path(levels - 1, trees[levels - 1], leaf, path.data()); e != Error::kOk) return e;
  std::uint8_t q_digest[32];
  state->message->finish(q_digest);
  write_lms_signature(state->bottom_key, leaf, state->randomizer, q_digest, path.data(), bottom_slot->data());
  return out;
}

Result<Bytes> Signer::sign(state::IndexLease&& lease, ByteView message) {
  auto op = begin(std::move(lease));
  if (!op) return op.error();
  if (Error e = op->update(message); e != Error::kOk) return e;
  return finish(std::move(*op));
}

Error Signer::prepare(std::uint64_t q) {
  Impl& s = *impl_;
  if (q >= s.max_signatures) return Error::kExhausted;
  const HssPosition pos = hss_position(s.key.levels, q);
  auto top = s.top_tree();
  if (!top) return top.error();
  TreePtr parent = *top;
  for (std::size_t level = 1; level < s.key.levels.size(); ++level) {
    auto t = s.lower_tree(level, pos, parent);
    if (!t) return t.error();
    parent = *t;
  }
  return Error::kOk;
}

Error Signer::load_top_tree() {
  auto top = impl_->top_tree();
  return top ? Error::kOk : top.error();
}

std::size_t Signer::signature_bytes() const noexcept { return impl_->signature_bytes; }
const Bytes& Signer::public_key() const noexcept { return impl_->public_key; }
const HssPrivateKey& Signer::private_key() const noexcept { return impl_->key; }

}  // namespace klms::lms
