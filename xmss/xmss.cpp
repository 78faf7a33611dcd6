#include "xmss/xmss.h"

#include <strings.h>
#include <sys/random.h>

#include <cerrno>
#include <cstring>

#include "base/endian.h"
#include "xmss/wots.h"

namespace klms::xmss {
namespace {

std::uint32_t get_u32(const std::uint8_t* p) noexcept { return endian::load_be32(p); }
void put_u32(std::uint8_t* p, std::uint32_t v) noexcept { endian::store_be32(p, v); }

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

std::string_view error_name(Error e) noexcept {
  switch (e) {
    case Error::kOk: return "ok";
    case Error::kVerifyFailed: return "signature verification failed";
    case Error::kMalformedKey: return "malformed XMSS public key";
    case Error::kMalformedSignature: return "malformed XMSS signature";
    case Error::kUnknownType: return "unknown XMSS type code";
    case Error::kBackendMismatch: return "hash backend does not match the XMSS set";
    case Error::kIndexOutOfRange: return "XMSS signing index out of range";
    case Error::kRandomFailed: return "random source failed";
  }
  return "unknown error";
}

Error parse_public_key(ByteView in, PublicKeyView& out) noexcept {
  if (in.size() < 4) return Error::kMalformedKey;
  const Params* p = find_params(get_u32(in.data()));
  if (p == nullptr) return Error::kUnknownType;
  if (in.size() != p->public_key_bytes()) return Error::kMalformedKey;
  out.params = p;
  out.root = in.subspan(4, p->n);
  out.pub_seed = in.subspan(4 + p->n, p->n);
  return Error::kOk;
}

Error parse_signature(const Params& params, ByteView in, SignatureView& out) noexcept {
  if (in.size() != params.signature_bytes()) return Error::kMalformedSignature;
  const std::uint32_t idx = get_u32(in.data());
  if (idx >= params.leaves()) return Error::kMalformedSignature;
  const std::size_t n = params.n;
  out.idx = idx;
  out.r = in.subspan(4, n);
  out.ots = in.subspan(4 + n, std::size_t{params.len} * n);
  out.auth = in.subspan(4 + n + std::size_t{params.len} * n, std::size_t{params.h} * n);
  return Error::kOk;
}

Error verify(const PublicKeyView& key, const hashes::Backend& backend, ByteView message,
             ByteView signature) noexcept {
  const Params& p = *key.params;
  if (backend.family != p.family) return Error::kBackendMismatch;
  SignatureView sig;
  if (const Error e = parse_signature(p, signature, sig); e != Error::kOk) return e;
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
  PublicKeyView key;
  if (const Error e = parse_public_key(public_key, key); e != Error::kOk) return e;
  const hashes::Backend& backend =
      preferred != nullptr && preferred->family == key.params->family ? *preferred
                                                                       : hashes::fastest_backend(key.params->family);
  return verify(key, backend, message, signature);
}

std::optional<PrivateKey> PrivateKey::from_seeds(const Params& params, const hashes::Backend& backend,
                                                 const std::uint8_t* sk_seed, const std::uint8_t* sk_prf,
                                                 const std::uint8_t* pub_seed, Error* error) {
  if (backend.family != params.family) {
    if (error != nullptr) *error = Error::kBackendMismatch;
    return std::nullopt;
  }
  PrivateKey key;
  key.params_ = params;
  key.hasher_ = Hasher(params, backend, pub_seed);
  std::memcpy(key.sk_seed_, sk_seed, params.n);
  std::memcpy(key.sk_prf_, sk_prf, params.n);
  key.nodes_ = build_tree(key.hasher_, key.sk_seed_);
  if (error != nullptr) *error = Error::kOk;
  return key;
}

std::optional<PrivateKey> PrivateKey::generate(const Params& params, const hashes::Backend& backend, Error* error) {
  std::uint8_t seeds[3 * kMaxN];
  if (!fill_random(seeds, 3 * std::size_t{params.n})) {
    if (error != nullptr) *error = Error::kRandomFailed;
    return std::nullopt;
  }
  auto key = from_seeds(params, backend, seeds, seeds + params.n, seeds + 2 * params.n, error);
  explicit_bzero(seeds, sizeof seeds);
  return key;
}

PrivateKey::PrivateKey(PrivateKey&& other) noexcept
    : params_(other.params_), hasher_(other.hasher_), nodes_(std::move(other.nodes_)) {
  std::memcpy(sk_seed_, other.sk_seed_, kMaxN);
  std::memcpy(sk_prf_, other.sk_prf_, kMaxN);
  other.wipe();
}

PrivateKey& PrivateKey::operator=(PrivateKey&& other) noexcept {
  if (this != &other) {
    params_ = other.params_;
    hasher_ = other.hasher_;
    nodes_ = std::move(other.nodes_);
    std::memcpy(sk_seed_, other.sk_seed_, kMaxN);
    std::memcpy(sk_prf_, other.sk_prf_, kMaxN);
    other.wipe();
  }
  return *this;
}

PrivateKey::~PrivateKey() { wipe(); }

void PrivateKey::wipe() noexcept {
  explicit_bzero(sk_seed_, sizeof sk_seed_);
  explicit_bzero(sk_prf_, sizeof sk_prf_);
}

Bytes PrivateKey::public_key() const {
  const std::size_t n = params_.n;
  Bytes out(params_.public_key_bytes());
  put_u32(out.data(), params_.oid);
  std::memcpy(out.data() + 4, nodes_.root(), n);
  std::memcpy(out.data() + 4 + n, hasher_.pub_seed(), n);
  return out;
}

Error PrivateKey::sign(std::uint32_t idx, ByteView message, Bytes& signature) const {
  if (idx >= params_.leaves()) return Error::kIndexOutOfRange;
  const std::size_t n = params_.n;
  const std::size_t len = params_.len;
  signature.assign(params_.signature_bytes(), 0);
  std::uint8_t* out = signature.data();
  put_u32(out, idx);
  alignas(64) std::uint8_t r[32];
  hasher_.randomizer(sk_prf_, idx, r);
  std::memcpy(out + 4, r, n);
  alignas(64) std::uint8_t digest[32];
  hasher_.message_digest(r, nodes_.root(), idx, message.data(), message.size(), digest);
  alignas(64) std::uint8_t chains[kMaxLen * kSlot];
  wots_sign(hasher_, sk_seed_, idx, digest, chains);
  for (std::size_t i = 0; i < len; ++i) std::memcpy(out + 4 + n + i * n, chains + i * kSlot, n);
  explicit_bzero(chains, sizeof chains);  // chain values below the top are private
  authentication_path(nodes_, n, idx, out + 4 + n + len * n);
  return Error::kOk;
}

}  // namespace klms::xmss
