#include "xmss/stateful_signer.h"

#include <cstring>

#include "base/process_token.h"
#include "xmss/keygen.h"
#include "xmss/stack_wipe.h"
#include "xmss/wire_format.h"
#include "xmss/xmss_scheme.h"

namespace klms::xmss {

// One signature in progress: its index, the signature being written and the message digest's stream.
struct StatefulSigner::Operation final : stateful::Operation {
  const StatefulSigner* signer = nullptr;  // the signer that began it
  std::uint64_t owner = process_token();  // the process that began it
  std::uint64_t index = 0;
  Bytes signature;
  SignatureSlots slots;
  hashes::StreamState stream{};
  bool finished = false;

  Error update(ByteView data) noexcept override {
    if (finished) return Error::kLeaseConsumed;
    if (owner != process_token()) return Error::kForeignProcess;
    if (!data.empty()) signer->hasher_.backend().stream_update(stream, data.data(), data.size());
    return Error::kOk;
  }
  bool owned_by_this_process() const noexcept override { return owner == process_token(); }
};

StatefulSigner::StatefulSigner(KeyMaterial key, const hashes::Backend& backend, bool seeded)
    : key_(std::move(key)), hasher_(key_.params, backend, key_.pub_seed.data()), seeded_(seeded) {}

StatefulSigner::~StatefulSigner() = default;

Result<std::shared_ptr<StatefulSigner>> StatefulSigner::create(KeyMaterial key, const std::string& state_path,
                                                               bool seeded, BuildOptions build,
                                                               std::unique_ptr<LayerTree> top_tree) {
  const auto backend = backend_for_set(key.params, nullptr);
  if (!backend) return backend.error();
  std::shared_ptr<StatefulSigner> s(new StatefulSigner(std::move(key), **backend, seeded));
  const Params& p = s->key_.params;
  TreeStoreOptions options;
  options.build = std::move(build);
  if (!state_path.empty()) {
    // Layers count from the bottom here and from the top in the cache names.
    options.cache_path = [state_path, d = p.d](unsigned layer) { return tree_cache_file(state_path, d - 1u - layer); };
  }
  if (top_tree && (top_tree->address().layer != p.d - 1u || top_tree->address().tree != 0 ||
                   top_tree->height() != p.tree_height())) {
    return Error::kMalformedPrivateKey;
  }
  const Bytes public_key = s->key_.public_key();
  s->store_ = std::make_unique<TreeStore>(s->key_, s->hasher_, stateful::key_id_of(public_key), std::move(options),
                                          std::move(top_tree));
  return s;
}

Error StatefulSigner::load_top_tree() { return store_->load_top_tree(); }

Result<std::unique_ptr<stateful::Operation>> StatefulSigner::begin_signature(state::IndexLease&& lease) {
  if (!lease.valid()) return Error::kLeaseConsumed;
  if (!lease.owned_by_this_process()) {
    lease.consume();  // spent either way: the process that reserved it may sign with its own copy
    return Error::kForeignProcess;
  }
  const std::uint64_t index = lease.consume();
  const Params& p = key_.params;
  if (index >= p.leaves()) return Error::kExhausted;
  if (seeded_ && !stateful::seeded_keys_allowed()) return Error::kSeededKeyRefused;
  auto op = std::make_unique<Operation>();
  op->signer = this;
  op->index = index;
  op->signature.assign(p.signature_bytes(), 0);
  op->slots = write_signature_frame(p, index, op->signature.data());
  alignas(64) std::uint8_t r[kSlot];
  hasher_.randomizer(key_.sk_prf.data(), index, r);
  std::memcpy(op->slots.r, r, p.n);
  hasher_.message_digest_begin(op->stream, r, key_.root.data(), index);
  wipe_stack();  // the PRF input held SK_PRF
  return std::unique_ptr<stateful::Operation>(std::move(op));
}

Result<Bytes> StatefulSigner::finish_signature(std::unique_ptr<stateful::Operation> operation) {
  auto* op = dynamic_cast<Operation*>(operation.get());
  if (op == nullptr || op->signer != this) return Error::kInvalidArgument;
  if (op->finished) return Error::kLeaseConsumed;
  if (op->owner != process_token()) return Error::kForeignProcess;
  op->finished = true;
  alignas(64) std::uint8_t digest[kSlot];
  hasher_.backend().stream_final(op->stream, digest);
  if (const Error e = store_->sign(op->index, digest, op->slots); e != Error::kOk) return e;
  return std::move(op->signature);
}

}  // namespace klms::xmss
