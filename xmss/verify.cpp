#include "xmss/verify.h"

#include <cstring>

#include "xmss/hasher.h"
#include "xmss/tree.h"
#include "xmss/wots.h"

namespace klms::xmss {
namespace {

bool constant_time_equal(const std::uint8_t* a, const std::uint8_t* b, std::size_t n) noexcept {
  unsigned diff = 0;
  for (std::size_t i = 0; i < n; ++i) diff |= static_cast<unsigned>(a[i] ^ b[i]);
  return diff == 0;
}

// The root the layers of a parsed signature lead to from the message digest (RFC 8391 §4.2.5).
void root_from_signature(const Hasher& hasher, const SignatureView& sig, const std::uint8_t* digest,
                         std::uint8_t* out32) noexcept {
  const Params& p = hasher.params();
  const unsigned th = p.tree_height();
  alignas(64) std::uint8_t node[kSlot];
  std::memcpy(node, digest, kSlot);
  std::uint64_t idx = sig.idx;
  alignas(64) std::uint8_t pk[kMaxLen * kSlot];
  alignas(64) std::uint8_t leaf[kSlot];
  for (unsigned i = 0; i < p.d; ++i) {
    const auto leaf_index = static_cast<std::uint32_t>(idx & ((std::uint64_t{1} << th) - 1));
    const TreeAddress tree{i, idx >> th};
    wots_public_key_from_signature(hasher, tree, leaf_index, node, sig.layers[i].ots.data(), pk);
    ltrees(hasher, tree, pk, leaf_index, 1, leaf);
    root_from_path(hasher, tree, th, leaf_index, leaf, sig.layers[i].auth.data(), node);
    idx >>= th;
  }
  std::memcpy(out32, node, kSlot);
}

const hashes::Backend& backend_for(const Params& p, const hashes::Backend* preferred) noexcept {
  return preferred != nullptr && preferred->family == p.family ? *preferred : hashes::fastest_backend(p.family);
}

}  // namespace

Error verify(const PublicKeyView& key, const hashes::Backend& backend, ByteView message,
             ByteView signature) noexcept {
  const Params& p = *key.params;
  if (backend.family != p.family) return Error::kBackendMismatch;
  const auto parsed = parse_signature(p, signature);
  if (!parsed) return parsed.error();
  const Hasher hasher(p, backend, key.pub_seed.data());
  alignas(64) std::uint8_t digest[kSlot];
  hasher.message_digest(parsed->r.data(), key.root.data(), parsed->idx, message.data(), message.size(), digest);
  alignas(64) std::uint8_t root[kSlot];
  root_from_signature(hasher, *parsed, digest, root);
  return constant_time_equal(root, key.root.data(), p.n) ? Error::kOk : Error::kVerifyFailed;
}

Error verify(Scheme scheme, ByteView public_key, ByteView message, ByteView signature,
             const hashes::Backend* preferred) noexcept {
  const auto key = parse_public_key(scheme, public_key);
  if (!key) return key.error();
  return verify(*key, backend_for(*key->params, preferred), message, signature);
}

struct VerifyStream::State {
  Bytes public_key, signature;
  PublicKeyView key;
  SignatureView sig;
  Hasher hasher;
  hashes::StreamState stream;
  bool finished = false;
};

VerifyStream::VerifyStream(std::unique_ptr<State> state) noexcept : state_(std::move(state)) {}
VerifyStream::VerifyStream(VerifyStream&&) noexcept = default;
VerifyStream& VerifyStream::operator=(VerifyStream&&) noexcept = default;
VerifyStream::~VerifyStream() = default;

Result<VerifyStream> VerifyStream::begin(Scheme scheme, ByteView public_key, ByteView signature,
                                         const hashes::Backend* preferred) {
  auto s = std::make_unique<State>();
  s->public_key.assign(public_key.begin(), public_key.end());
  s->signature.assign(signature.begin(), signature.end());
  const auto key = parse_public_key(scheme, s->public_key);
  if (!key) return key.error();
  const auto sig = parse_signature(*key->params, s->signature);
  if (!sig) return sig.error();
  s->key = *key;
  s->sig = *sig;
  s->hasher = Hasher(*key->params, backend_for(*key->params, preferred), key->pub_seed.data());
  s->hasher.message_digest_begin(s->stream, sig->r.data(), key->root.data(), sig->idx);
  return VerifyStream(std::move(s));
}

void VerifyStream::update(ByteView data) noexcept {
  if (state_ && !state_->finished && !data.empty()) {
    state_->hasher.backend().stream_update(state_->stream, data.data(), data.size());
  }
}

Error VerifyStream::finish() noexcept {
  if (!state_ || state_->finished) return Error::kVerifyFailed;
  state_->finished = true;
  alignas(64) std::uint8_t digest[kSlot];
  state_->hasher.backend().stream_final(state_->stream, digest);
  alignas(64) std::uint8_t root[kSlot];
  root_from_signature(state_->hasher, state_->sig, digest, root);
  return constant_time_equal(root, state_->key.root.data(), state_->key.params->n) ? Error::kOk
                                                                                    : Error::kVerifyFailed;
}

}  // namespace klms::xmss
