#include "xmss/xmss.h"

#include <sys/random.h>

#include <cerrno>
#include <cstring>

#include "xmss/wots.h"

namespace klms::xmss {
namespace {

bool fill_random(std::uint8_t* out, std::size_t len) noexcept {
  while (len > 0) {
    const ssize_t got = getrandom(out, len, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    out += got;
    len -= static_cast<std::size_t>(got);
  }
  return true;
}

bool constant_time_equal(const std::uint8_t* a, const std::uint8_t* b, std::size_t n) noexcept {
  unsigned diff = 0;
  for (std::size_t i = 0; i < n; ++i) diff |= static_cast<unsigned>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

Result<PublicKeyView> parse_public_key(ByteView in) noexcept {
  if (in.size() < 4) return Error::kMalformedPublicKey;
  const Params* p = find_params(get_u32(in.data()));
  if (p == nullptr) return Error::kUnknownXmssType;
  if (in.size() != p->public_key_bytes()) return Error::kMalformedPublicKey;
  PublicKeyView out;
  out.params = p;
  out.root = in.subspan(4, p->n);
  out.pub_seed = in.subspan(4 + p->n, p->n);
  return out;
}

Result<SignatureView> parse_signature(const Params& params, ByteView in) noexcept {
  if (in.size() != params.signature_bytes()) return Error::kMalformedSignature;
  const std::uint32_t idx = get_u32(in.data());
  if (idx >= params.leaves()) return Error::kMalformedSignature;
  const std::size_t n = params.n;
  SignatureView out;
  out.idx = idx;
  out.r = in.subspan(4, n);
  out.ots = in.subspan(4 + n, std::size_t{params.len} * n);
  out.auth = in.subspan(4 + n + std::size_t{params.len} * n, std::size_t{params.h} * n);
  return out;
}

Error verify(const PublicKeyView& key, const hashes::Backend& backend, ByteView message,
             ByteView signature) noexcept {
  const Params& p = *key.params;
  if (backend.family != p.family) return Error::kBackendMismatch;
  const auto parsed = parse_signature(p, signature);
  if (!parsed) return parsed.error();
  const SignatureView& sig = *parsed;
  const Hasher hasher(p, backend, key.pub_seed.data());
  alignas(64) std::uint8_t digest[32];
  hasher.message_digest(sig.r.data(), key.root.data(), sig.idx, message.data(), message.size(), digest);
  alignas(64) std::uint8_t pk[kMaxLen * kSlot];
  wots_public_key_from_signature(hasher, sig.idx, digest, sig.ots.data(), pk);
  alignas(64) std::uint8_t leaf[kSlot];
  ltrees(hasher, pk, sig.idx, 1, leaf);
  alignas(64) std::uint8_t root[kSlot];
  root_from_path(hasher, sig.idx, leaf, sig.auth.data(), root);
  return constant_time_equal(root, key.root.data(), p.n) ? Error::kOk : Error::kVerifyFailed;
}

Error verify(ByteView public_key, ByteView message, ByteView signature, const hashes::Backend* preferred) noexcept {
  const auto key = parse_public_key(public_key);
  if (!key) return key.error();
  const hashes::Backend& backend =
      preferred != nullptr && preferred->family == key->params->family ? *preferred
                                                                        : hashes::fastest_backend(key->params->family);
  return verify(*key, backend, message, signature);
}

Result<PrivateKey> PrivateKey::from_seeds(const Params& params, const hashes::Backend& backend, ByteView sk_seed,
                                          ByteView sk_prf, ByteView pub_seed) {
  if (backend.family != params.family) return Error::kBackendMismatch;
  if (sk_seed.size() != params.n || sk_prf.size() != params.n || pub_seed.size() != params.n) {
    return Error::kBadSeedLength;
  }
  PrivateKey key;
  key.params_ = params;
  key.hasher_ = Hasher(params, backend, pub_seed.data());
  std::memcpy(key.sk_seed_.data(), sk_seed.data(), params.n);
  std::memcpy(key.sk_prf_.data(), sk_prf.data(), params.n);
  key.nodes_ = build_tree(key.hasher_, key.sk_seed_.data());
  return key;
}

Result<PrivateKey> PrivateKey::generate(const Params& params, const hashes::Backend& backend) {
  const std::size_t n = params.n;
  SecretArray<3 * kMaxN> seeds;
  if (!fill_random(seeds.data(), 3 * n)) return Error::kInternal;
  const ByteView all(seeds.data(), 3 * n);
  return from_seeds(params, backend, all.first(n), all.subspan(n, n), all.subspan(2 * n, n));
}

// A moved-from key keeps no copy of the seeds (not only until it goes away).
PrivateKey::PrivateKey(PrivateKey&& other) noexcept
    : params_(other.params_),
      hasher_(other.hasher_),
      sk_seed_(other.sk_seed_),
      sk_prf_(other.sk_prf_),
      nodes_(std::move(other.nodes_)) {
  other.wipe_seeds();
}

PrivateKey& PrivateKey::operator=(PrivateKey&& other) noexcept {
  if (this != &other) {
    params_ = other.params_;
    hasher_ = other.hasher_;
    nodes_ = std::move(other.nodes_);
    sk_seed_ = other.sk_seed_;
    sk_prf_ = other.sk_prf_;
    other.wipe_seeds();
  }
  return *this;
}

PrivateKey::~PrivateKey() = default;  // SecretArray wipes the seeds

void PrivateKey::wipe_seeds() noexcept {
  wipe(sk_seed_.data(), sk_seed_.size());
  wipe(sk_prf_.data(), sk_prf_.size());
}

Bytes PrivateKey::public_key() const {
  const std::size_t n = params_.n;
  Bytes out(params_.public_key_bytes());
  put_u32(out.data(), params_.oid);
  std::memcpy(out.data() + 4, nodes_.root(), n);
  std::memcpy(out.data() + 4 + n, hasher_.pub_seed(), n);
  return out;
}

Result<Bytes> PrivateKey::sign(std::uint64_t index, ByteView message) const {
  if (index >= params_.leaves()) return Error::kExhausted;
  const auto idx = static_cast<std::uint32_t>(index);  // < 2^h <= 2^20
  const std::size_t n = params_.n;
  const std::size_t len = params_.len;
  Bytes signature(params_.signature_bytes(), 0);
  std::uint8_t* out = signature.data();
  put_u32(out, idx);
  alignas(64) std::uint8_t r[32];
  hasher_.randomizer(sk_prf_.data(), idx, r);
  std::memcpy(out + 4, r, n);
  alignas(64) std::uint8_t digest[32];
  hasher_.message_digest(r, nodes_.root(), idx, message.data(), message.size(), digest);
  alignas(64) std::uint8_t chains[kMaxLen * kSlot];
  wots_sign(hasher_, sk_seed_.data(), idx, digest, chains);
  for (std::size_t i = 0; i < len; ++i) std::memcpy(out + 4 + n + i * n, chains + i * kSlot, n);
  wipe(chains, sizeof chains);  // chain values below the top are private
  authentication_path(nodes_, n, idx, out + 4 + n + len * n);
  return signature;
}

}  // namespace klms::xmss
