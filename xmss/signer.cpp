#include "xmss/signer.h"

#include <cstring>

#include "xmss/keygen.h"
#include "xmss/stack_wipe.h"
#include "xmss/wire_format.h"
#include "xmss/wots.h"

namespace klms::xmss {

struct Signer::Operation::State {
  std::uint64_t index = 0;
  Bytes signature;
  SignatureSlots slots;
  hashes::StreamState stream;
  const hashes::Backend* backend = nullptr;
  bool finished = false;
};

Signer::Operation::Operation(std::unique_ptr<State> state) noexcept : state_(std::move(state)) {}
Signer::Operation::Operation(Operation&&) noexcept = default;
Signer::Operation& Signer::Operation::operator=(Operation&&) noexcept = default;
Signer::Operation::~Operation() = default;

void Signer::Operation::update(ByteView data) noexcept {
  if (state_ && !state_->finished && !data.empty()) state_->backend->stream_update(state_->stream, data.data(), data.size());
}

Signer::Signer(KeyMaterial key, SignerOptions options, const hashes::Backend& backend)
    : key_(std::move(key)), options_(std::move(options)), hasher_(key_.params, backend, key_.pub_seed.data()) {}

Signer::~Signer() = default;

Result<std::unique_ptr<Signer>> Signer::create(KeyMaterial key, SignerOptions options,
                                               std::unique_ptr<LayerTree> top_tree) {
  const auto backend = backend_for_set(key.params, options.backend);
  if (!backend) return backend.error();
  std::unique_ptr<Signer> s(new Signer(std::move(key), std::move(options), **backend));
  if (top_tree) {
    const Params& p = s->key_.params;
    const unsigned top = p.d - 1u;
    if (top_tree->address().layer != top || top_tree->address().tree != 0 || top_tree->height() != p.tree_height() ||
        std::memcmp(top_tree->root(), s->key_.root.data(), p.n) != 0) {
      return Error::kMalformedPrivateKey;
    }
    s->trees_[top] = std::move(top_tree);
  }
  return s;
}

Result<Signer::Operation> Signer::begin(std::uint64_t index) {
  const Params& p = key_.params;
  if (index >= p.leaves()) return Error::kExhausted;
  auto s = std::make_unique<Operation::State>();
  s->index = index;
  s->backend = &hasher_.backend();
  s->signature.assign(p.signature_bytes(), 0);
  s->slots = write_signature_frame(p, index, s->signature.data());
  alignas(64) std::uint8_t r[kSlot];
  hasher_.randomizer(key_.sk_prf.data(), index, r);
  std::memcpy(s->slots.r, r, p.n);
  hasher_.message_digest_begin(s->stream, r, key_.root.data(), index);
  wipe_stack();  // the PRF input held SK_PRF
  return Operation(std::move(s));
}

Result<Bytes> Signer::finish(Operation&& operation) {
  Operation op(std::move(operation));
  if (!op.state_ || op.state_->finished) return Error::kInvalidArgument;
  Operation::State& s = *op.state_;
  s.finished = true;
  alignas(64) std::uint8_t digest[kSlot];
  s.backend->stream_final(s.stream, digest);
  {
    const std::lock_guard lock(mutex_);
    const Error e = ensure_layers(s.index);
    if (e != Error::kOk) return e;
    sign_root(0, digest, s.index, s.slots.layers[0]);
    for (unsigned i = 1; i < key_.params.d; ++i) {
      std::memcpy(s.slots.layers[i], layer_signatures_[i].data(), layer_signatures_[i].size());
    }
  }
  wipe_stack();  // private elements and chain values passed through the stack
  return std::move(s.signature);
}

Result<Bytes> Signer::sign(std::uint64_t index, ByteView message) {
  auto op = begin(index);
  if (!op) return op.error();
  op->update(message);
  return finish(std::move(*op));
}

Error Signer::prepare(std::uint64_t index) {
  if (index >= key_.params.leaves()) return Error::kExhausted;
  const std::lock_guard lock(mutex_);
  const Error e = ensure_layers(index);
  wipe_stack();
  return e;
}

Error Signer::load_top_tree() {
  const std::lock_guard lock(mutex_);
  const Error e = ensure_tree(key_.params.d - 1u, 0);
  wipe_stack();
  return e;
}

std::size_t Signer::memory_bytes() const {
  const std::lock_guard lock(mutex_);
  std::size_t total = 0;
  for (unsigned i = 0; i < key_.params.d; ++i) {
    if (trees_[i]) total += trees_[i]->memory_bytes();
    total += layer_signatures_[i].size();
  }
  return total;
}

Error Signer::ensure_tree(unsigned layer, std::uint64_t tree) {
  if (trees_[layer] && trees_[layer]->address().tree == tree) return Error::kOk;
  auto built = LayerTree::build(hasher_, key_.sk_seed.data(), TreeAddress{layer, tree}, options_.build);
  if (!built) return built.error();
  if (layer == key_.params.d - 1u && std::memcmp((*built)->root(), key_.root.data(), key_.params.n) != 0) {
    return Error::kMalformedPrivateKey;  // SK_SEED and SEED do not make the public key's root
  }
  trees_[layer] = std::move(*built);
  return Error::kOk;
}

Error Signer::ensure_layers(std::uint64_t index) {
  const Params& p = key_.params;
  const unsigned th = p.tree_height();
  for (unsigned layer = p.d; layer-- > 0;) {
    const std::uint64_t tree = layer + 1u == p.d ? 0 : index >> (th * (layer + 1));
    const Error e = ensure_tree(layer, tree);
    if (e != Error::kOk) return e;
  }
  for (unsigned i = 1; i < p.d; ++i) {
    const std::uint64_t lower_tree = index >> (th * i);
    if (!layer_signatures_[i].empty() && signed_tree_[i] == lower_tree) continue;
    layer_signatures_[i].assign(p.layer_signature_bytes(), 0);
    sign_root(i, trees_[i - 1]->root(), lower_tree, layer_signatures_[i].data());
    signed_tree_[i] = lower_tree;
  }
  return Error::kOk;
}

void Signer::sign_root(unsigned layer, const std::uint8_t* digest, std::uint64_t index_in_layer, std::uint8_t* out) {
  const Params& p = key_.params;
  const unsigned th = p.tree_height();
  const std::size_t n = p.n;
  const auto leaf = static_cast<std::uint32_t>(index_in_layer & ((std::uint64_t{1} << th) - 1));
  const TreeAddress tree{layer, index_in_layer >> th};
  alignas(64) std::uint8_t chains[kMaxLen * kSlot];
  wots_sign(hasher_, key_.sk_seed.data(), tree, leaf, digest, chains);
  for (std::size_t i = 0; i < p.len; ++i) std::memcpy(out + i * n, chains + i * kSlot, n);
  wipe(chains, sizeof chains);  // chain values below the top are private
  trees_[layer]->path(hasher_, key_.sk_seed.data(), leaf, out + std::size_t{p.len} * n);
}

}  // namespace klms::xmss
