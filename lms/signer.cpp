#include "lms/signer.h"

#include <cstdlib>
#include <cstring>

#include "klms/klms.h"
#include "lms/lmots.h"
#include "lms/lms_sign.h"
#include "lms/wire_format.h"
#include "base/process_token.h"
#include "lms/tree_store.h"

namespace klms::lms {

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

// The signer: the key, its public key and sizes; the trees and their paths come from `store`.
struct Signer::Impl {
  HssPrivateKey key;
  Bytes public_key;
  std::uint64_t max_signatures = 0;
  std::size_t signature_bytes = 0;
  std::unique_ptr<TreeStore> store;
};

// One signature's state: also the stateful layer's Operation, so that begin_signature hands out
// the object begin made.
struct Signer::Operation::State final : stateful::Operation {
  const Signer* signer = nullptr;          // the signer that began it
  std::uint64_t owner = process_token();  // the process that began it
  std::uint64_t q = 0;
  HssPosition position;
  TreeKey bottom_key;
  std::uint8_t randomizer[32] = {};
  std::unique_ptr<MessageHasher> message;
  bool finished = false;

  Error update(ByteView data) noexcept override {
    if (finished) return Error::kLeaseConsumed;
    if (owner != process_token()) return Error::kForeignProcess;
    message->update(data.data(), data.size());
    return Error::kOk;
  }
  bool owned_by_this_process() const noexcept override { return owner == process_token(); }
};

Signer::Operation::Operation(std::unique_ptr<State> state) noexcept : state_(std::move(state)) {}
Signer::Operation::Operation(Operation&&) noexcept = default;
Signer::Operation& Signer::Operation::operator=(Operation&&) noexcept = default;
Signer::Operation::~Operation() = default;

bool Signer::Operation::owned_by_this_process() const noexcept {
  return state_ && state_->owned_by_this_process();
}

Error Signer::Operation::update(ByteView data) noexcept {
  if (!state_) return Error::kLeaseConsumed;
  return state_->update(data);
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
  TreeStoreOptions store_options;
  store_options.cache_path = std::move(options.cache_path);
  store_options.preferred_backend = options.preferred_backend;
  store_options.build = std::move(options.build);
  auto impl = std::make_unique<Impl>();
  impl->store = std::make_unique<TreeStore>(top_tree_key(key, options.preferred_backend), key.levels, named->top.root,
                                            key_id_of(hss_public_key), std::move(store_options), std::move(top_tree));
  impl->max_signatures = max_signatures(key.levels);
  impl->signature_bytes = hss_signature_bytes(key.levels);
  impl->key = std::move(key);
  impl->public_key = std::move(hss_public_key);
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
  state->signer = this;
  state->q = q;
  state->position = hss_position(s.key.levels, q);
  state->bottom_key = s.store->top_key();
  for (std::size_t level = 1; level < s.key.levels.size(); ++level) {
    state->bottom_key = state->bottom_key.child(state->position.leaf[level - 1], s.key.levels[level],
                                                s.store->options().preferred_backend);
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
  auto top = s.store->top_tree();
  if (!top) return top.error();
  trees[0] = *top;
  for (std::size_t level = 1; level < levels; ++level) {
    auto t = s.store->lower_tree(level, state->position, trees[level - 1]);
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
  if (Error e = s.store->path(levels - 1, trees[levels - 1], leaf, path.data()); e != Error::kOk) return e;
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

Result<std::unique_ptr<stateful::Operation>> Signer::begin_signature(state::IndexLease&& lease) {
  auto operation = begin(std::move(lease));
  if (!operation) return operation.error();
  return std::unique_ptr<stateful::Operation>(std::move(operation->state_));
}

Result<Bytes> Signer::finish_signature(std::unique_ptr<stateful::Operation> operation) {
  const auto* state = dynamic_cast<const Operation::State*>(operation.get());
  if (state == nullptr || state->signer != this) return Error::kInvalidArgument;
  std::unique_ptr<Operation::State> mine(static_cast<Operation::State*>(operation.release()));
  return finish(Operation(std::move(mine)));
}

Error Signer::prepare(std::uint64_t q) {
  Impl& s = *impl_;
  if (q >= s.max_signatures) return Error::kExhausted;
  const HssPosition pos = hss_position(s.key.levels, q);
  auto top = s.store->top_tree();
  if (!top) return top.error();
  TreePtr parent = *top;
  for (std::size_t level = 1; level < s.key.levels.size(); ++level) {
    auto t = s.store->lower_tree(level, pos, parent);
    if (!t) return t.error();
    parent = *t;
  }
  return Error::kOk;
}

Error Signer::load_top_tree() {
  auto top = impl_->store->top_tree();
  return top ? Error::kOk : top.error();
}

std::size_t Signer::signature_bytes() const noexcept { return impl_->signature_bytes; }
const Bytes& Signer::public_key() const noexcept { return impl_->public_key; }
const HssPrivateKey& Signer::private_key() const noexcept { return impl_->key; }

}  // namespace klms::lms
