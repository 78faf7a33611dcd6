#include "xmss/xmss_scheme.h"

#include <cstring>
#include <utility>

#include "state/store.h"
#include "xmss/hasher.h"
#include "xmss/key_material.h"
#include "xmss/keygen.h"
#include "xmss/stateful_signer.h"
#include "xmss/verify.h"
#include "xmss/wire_format.h"

namespace klms::xmss {
namespace {

constexpr std::uint8_t kMagic[4] = {'K', 'X', 'M', 'S'};
constexpr std::uint8_t kFlagSeeded = 0x01;

BuildOptions engine_build(const stateful::BuildOptions& build) {
  BuildOptions out;
  out.threads = build.threads;
  out.progress = build.progress;
  out.report_from_leaves = build.report_from_leaves;
  return out;
}

std::uint8_t scheme_byte(Scheme s) noexcept { return s == Scheme::kXmss ? 0 : 1; }

}  // namespace

stateful::ParamsDigest params_digest_of(const Params& params) noexcept {
  std::uint8_t code[4];
  put_u32(code, params.oid);
  try {
    return stateful::tagged_params_digest(params.scheme == Scheme::kXmss ? "XMSS" : "XMSSMT", ByteView(code, 4));
  } catch (...) {
    return stateful::ParamsDigest{};  // out of memory for 20 bytes: binds nothing, and the file is refused
  }
}

std::string tree_cache_file(const std::string& state_file, std::size_t layer_from_top) {
  if (layer_from_top == 0) return state_file + ".cache";
  if (layer_from_top >= kCachedLayers) return {};
  return state_file + ".cache.level" + std::to_string(layer_from_top + 1);
}

// ---- XmssPrivateKey ----

std::size_t XmssPrivateKey::signature_bytes() const noexcept { return params->signature_bytes(); }

stateful::TreeShape XmssPrivateKey::top_tree() const { return XmssScheme(*params).top_tree(); }

std::string XmssPrivateKey::tree_cache_file(const std::string& state_path, std::size_t layer) const {
  return xmss::tree_cache_file(state_path, layer);
}

Result<std::shared_ptr<stateful::Signer>> XmssPrivateKey::make_signer(ByteView public_key, const std::string& state_path,
                                                                      const stateful::BuildOptions& build) const {
  if (check_halves(*this, public_key) != Error::kOk) return Error::kMalformedPrivateKey;
  const std::size_t n = params->n;
  auto material = KeyMaterial::from_fields(*params, ByteView(sk_seed.data(), n), ByteView(sk_prf.data(), n),
                                           ByteView(pub_seed.data(), n), public_key.subspan(4, n));
  if (!material) return material.error();
  auto signer = StatefulSigner::create(std::move(*material), state_path, seeded, engine_build(build), nullptr);
  if (!signer) return signer.error();
  return std::shared_ptr<stateful::Signer>(std::move(*signer));
}

SecretBytes encode_private_key(const XmssPrivateKey& key) {
  const std::size_t n = key.params->n;
  SecretBytes out;
  out.reserve(4 + 2 + 4 + 3 * n + 3 + key.state_file.size());
  append_bytes(out, kMagic, 4);
  const std::uint8_t header[2] = {kPrivateKeyVersion, scheme_byte(key.params->scheme)};
  append_bytes(out, header, 2);
  append_u32(out, key.params->oid);
  append_bytes(out, key.sk_seed.data(), n);
  append_bytes(out, key.sk_prf.data(), n);
  append_bytes(out, key.pub_seed.data(), n);
  const std::uint8_t trailer[3] = {static_cast<std::uint8_t>(key.seeded ? kFlagSeeded : 0),
                                   static_cast<std::uint8_t>(key.state_file.size() >> 8),
                                   static_cast<std::uint8_t>(key.state_file.size())};
  append_bytes(out, trailer, 3);
  append_bytes(out, reinterpret_cast<const std::uint8_t*>(key.state_file.data()), key.state_file.size());
  return out;
}

Result<XmssPrivateKey> decode_private_key(ByteView encoded) {
  Reader r(encoded);
  ByteView field;
  if (!r.take(4, field) || std::memcmp(field.data(), kMagic, 4) != 0) return Error::kMalformedPrivateKey;
  if (!r.take(2, field) || field[0] != kPrivateKeyVersion || field[1] > 1) return Error::kMalformedPrivateKey;
  const Scheme scheme = field[1] == 0 ? Scheme::kXmss : Scheme::kXmssMt;
  std::uint32_t code = 0;
  if (!r.take_u32(code)) return Error::kMalformedPrivateKey;
  XmssPrivateKey key;
  key.params = find_params(scheme, code);
  if (key.params == nullptr) return Error::kUnknownXmssType;
  const std::size_t n = key.params->n;
  if (!r.take(n, field)) return Error::kMalformedPrivateKey;
  std::memcpy(key.sk_seed.data(), field.data(), n);
  if (!r.take(n, field)) return Error::kMalformedPrivateKey;
  std::memcpy(key.sk_prf.data(), field.data(), n);
  if (!r.take(n, field)) return Error::kMalformedPrivateKey;
  std::memcpy(key.pub_seed.data(), field.data(), n);
  if (!r.take(3, field) || (field[0] & ~kFlagSeeded) != 0) return Error::kMalformedPrivateKey;
  key.seeded = (field[0] & kFlagSeeded) != 0;
  const std::size_t path_len = std::size_t{field[1]} << 8 | field[2];
  if (path_len == 0 || path_len > kMaxStatePathBytes || !r.take(path_len, field)) return Error::kMalformedPrivateKey;
  key.state_file.assign(field.begin(), field.end());
  if (key.state_file.front() != '/' || key.state_file.find('\0') != std::string::npos) {
    return Error::kMalformedPrivateKey;
  }
  // A path that `pkey -text` would print as several lines could lie about the state.
  if (state::check_state_path(key.state_file) == Error::kStatePathInvalid) return Error::kStatePathInvalid;
  if (r.remaining() != 0) return Error::kMalformedPrivateKey;
  return key;
}

Error check_halves(const XmssPrivateKey& key, ByteView public_key) noexcept {
  if (key.params == nullptr) return Error::kMalformedPrivateKey;
  auto parsed = parse_public_key(key.params->scheme, public_key);
  if (!parsed) return parsed.error();
  if (parsed->params != key.params ||
      std::memcmp(parsed->pub_seed.data(), key.pub_seed.data(), key.params->n) != 0) {
    return Error::kMalformedPrivateKey;
  }
  return Error::kOk;
}

Error check_top_tree_cache(const XmssPrivateKey& key, ByteView public_key) {
  if (check_halves(key, public_key) != Error::kOk) return Error::kMalformedPrivateKey;
  const Params& p = *key.params;
  const auto backend = backend_for_set(p, nullptr);
  if (!backend) return backend.error();
  const Hasher hasher(p, **backend, key.pub_seed.data());
  const CacheAuthenticator auth(hasher, key.sk_prf.data());
  CacheIdentity id;
  id.any_key_id = true;
  id.params = &p;
  id.layer = p.d - 1u;
  auto cache = TreeCacheFile::open(tree_cache_file(key.state_file, 0), id, auth);
  if (!cache) return Error::kOk;
  return std::memcmp(cache->root(), public_key.data() + 4, p.n) == 0 ? Error::kOk : Error::kMalformedPrivateKey;
}

// ---- XmssScheme ----

std::string_view XmssScheme::family() const noexcept {
  return params_->scheme == xmss::Scheme::kXmss ? "XMSS" : "XMSS^MT";
}

Error XmssScheme::check() const noexcept {
  // The study's combinations (code 0) have no encoding a verifier could read.
  return params_->oid == 0 ? Error::kUnknownXmssType : Error::kOk;
}

stateful::KeySizes XmssScheme::sizes() const noexcept {
  stateful::KeySizes s;
  s.seed = 2 * std::size_t{params_->n};
  s.identifier = params_->n;
  s.public_key = params_->public_key_bytes();
  s.signature = params_->signature_bytes();
  return s;
}

std::string XmssScheme::key_shape() const {
  const std::string name(params_->name);
  return (name.front() == 'X' ? "an " : "a ") + name + " key";
}

stateful::TreeShape XmssScheme::top_tree() const {
  std::string what(params_->name);
  if (params_->d > 1) what += ", its top layer";
  return stateful::TreeShape{params_->tree_leaves(), std::move(what)};
}

Result<std::unique_ptr<stateful::KeyBuild>> XmssScheme::build_key(const stateful::KeySeed& seed,
                                                                   const std::string& state_file,
                                                                   const stateful::BuildOptions& build) const {
  const Params& p = *params_;
  const std::size_t n = p.n;
  if (seed.seed.size() != 2 * n || seed.identifier.size() != n) return Error::kInvalidArgument;
  XmssPrivateKey key;
  key.params = params_;
  std::memcpy(key.sk_seed.data(), seed.seed.data(), n);
  std::memcpy(key.sk_prf.data(), seed.seed.data() + n, n);
  std::memcpy(key.pub_seed.data(), seed.identifier.data(), n);
  key.seeded = seed.seeded;
  key.state_file = state_file;
  // The top tree's cache is written as the tree grows (its lowest levels are never all in memory),
  // committed by make_signer once the state file exists.
  std::optional<TreeCacheWriter> cache;
  if (auto w = TreeCacheWriter::create(tree_cache_file(state_file, 0), p)) cache.emplace(std::move(*w));
  BuildOptions options = engine_build(build);
  if (cache) {
    options.unstored_levels = [&cache](unsigned level, std::uint32_t first, const std::uint8_t* nodes,
                                       std::uint32_t count) { cache->put_level(level, first, nodes, count); };
  }
  auto generated = generate_key_from_seeds(p, ByteView(key.sk_seed.data(), n), ByteView(key.sk_prf.data(), n),
                                           ByteView(key.pub_seed.data(), n), options);
  if (!generated) return generated.error();
  return std::unique_ptr<stateful::KeyBuild>(std::make_unique<XmssKeyBuild>(
      std::move(key), std::move(generated->public_key), std::move(generated->top_tree), std::move(cache),
      build.threads));
}

Error XmssScheme::verify(ByteView public_key, ByteView message, ByteView signature) const {
  return xmss::verify(params_->scheme, public_key, message, signature);
}

// ---- XmssKeyBuild ----

XmssKeyBuild::XmssKeyBuild(XmssPrivateKey key, Bytes public_key, std::unique_ptr<LayerTree> top_tree,
                           std::optional<TreeCacheWriter> cache, unsigned threads)
    : key_(std::move(key)), public_key_(std::move(public_key)), top_tree_(std::move(top_tree)),
      cache_(std::move(cache)), threads_(threads) {}

XmssKeyBuild::~XmssKeyBuild() = default;

Result<std::shared_ptr<stateful::Signer>> XmssKeyBuild::make_signer() {
  const Params& p = *key_.params;
  const std::size_t n = p.n;
  auto material = KeyMaterial::from_fields(p, ByteView(key_.sk_seed.data(), n), ByteView(key_.sk_prf.data(), n),
                                           ByteView(key_.pub_seed.data(), n), ByteView(public_key_).subspan(4, n));
  if (!material) return material.error();
  if (cache_ && top_tree_) {
    const auto backend = backend_for_set(p, nullptr);
    if (!backend) return backend.error();
    const Hasher hasher(p, **backend, key_.pub_seed.data());
    const CacheAuthenticator auth(hasher, key_.sk_prf.data());
    const LayerTree& t = *top_tree_;
    for (unsigned j = t.stored_from(); j <= t.height(); ++j) {
      cache_->put_level(j, 0, t.level(j), std::uint32_t{1} << (t.height() - j));
    }
    CacheIdentity id;
    id.key_id = stateful::key_id_of(public_key_);
    id.params = &p;
    id.layer = p.d - 1u;
    // A cache that cannot be written costs speed, not correctness: the first signature rebuilds it.
    (void)cache_->commit(id, t.root(), ByteView(), auth);
  }
  cache_.reset();
  BuildOptions build;
  build.threads = threads_;
  auto signer = StatefulSigner::create(std::move(*material), key_.state_file, key_.seeded, build, std::move(top_tree_));
  if (!signer) return signer.error();
  return std::shared_ptr<stateful::Signer>(std::move(*signer));
}

}  // namespace klms::xmss
