#include "lms/hss_scheme.h"

#include <cstring>
#include <utility>

#include "lms/hss.h"
#include "lms/merkle_tree.h"
#include "lms/private_key.h"
#include "lms/signer.h"
#include "lms/verify.h"
#include "lms/wire_format.h"

namespace klms::lms {
namespace {

stateful::TreeShape tree_shape(const LevelParams& top) {
  return stateful::TreeShape{std::uint64_t{1} << top.lms->h, parameter_sets(top)};
}

}  // namespace

std::string parameter_sets(const LevelParams& level) {
  return std::string(level.lms->name) + " with " + std::string(level.ots->name);
}

std::string hss_tree_cache_file(const std::string& state_file, std::size_t layer) {
  return layer == 0 ? state_file + ".cache" : state_file + ".cache.level" + std::to_string(layer + 1);
}

// ---- HssScheme ----

Error HssScheme::check() const noexcept { return check_generation_levels(*levels_); }

stateful::ParamsDigest HssScheme::params_digest() const noexcept { return levels_digest_of(*levels_); }

std::uint64_t HssScheme::max_signatures() const noexcept { return lms::max_signatures(*levels_); }

stateful::KeySizes HssScheme::sizes() const noexcept {
  stateful::KeySizes sizes;
  if (levels_->empty()) return sizes;
  sizes.seed = levels_->front().lms->m;
  sizes.identifier = kIdentifierBytes;
  sizes.public_key = hss_public_key_bytes(levels_->front());
  sizes.signature = hss_signature_bytes(*levels_);
  return sizes;
}

// "an H20 key", "an H10/H10 key": every level's height.
std::string HssScheme::key_shape() const {
  std::string out = "an ";
  for (std::size_t i = 0; i < levels_->size(); ++i) {
    if (i != 0) out += '/';
    out += 'H';
    out += std::to_string((*levels_)[i].lms->h);
  }
  out += " key";
  return out;
}

stateful::TreeShape HssScheme::top_tree() const { return tree_shape(levels_->front()); }

std::string HssScheme::tree_cache_file(const std::string& state_file, std::size_t layer) const {
  return hss_tree_cache_file(state_file, layer);
}

Result<std::unique_ptr<stateful::KeyBuild>> HssScheme::build_key(const stateful::KeySeed& seed,
                                                                  const std::string& state_file,
                                                                  const stateful::BuildOptions& build) const {
  const stateful::KeySizes expected = sizes();
  if (seed.seed.size() != expected.seed || seed.identifier.size() != expected.identifier) {
    return Error::kInvalidArgument;
  }
  HssPrivateKey key;
  key.levels = *levels_;
  std::memcpy(key.seed.data(), seed.seed.data(), seed.seed.size());
  std::memcpy(key.identifier.data(), seed.identifier.data(), kIdentifierBytes);
  key.seeded = seed.seeded;
  key.state_file = state_file;
  const TreeKey top = top_tree_key(key, preferred_);
  auto tree = build_tree(top, build);
  if (!tree) return tree.error();
  Bytes public_key = hss_public_key(key, tree->root());
  return std::unique_ptr<stateful::KeyBuild>(
      std::make_unique<HssKeyBuild>(std::move(key), std::move(public_key), std::move(*tree), preferred_, build.threads));
}

Error HssScheme::verify(ByteView public_key, ByteView message, ByteView signature) const {
  return hss_verify(public_key, message, signature);
}

// ---- HssKeyBuild ----

HssKeyBuild::HssKeyBuild(HssPrivateKey key, Bytes public_key, TreeNodes tree, const hashes::Backend* preferred,
                         unsigned threads)
    : key_(std::move(key)), public_key_(std::move(public_key)), tree_(std::move(tree)), preferred_(preferred),
      threads_(threads) {}

Result<std::shared_ptr<stateful::Signer>> HssKeyBuild::make_signer() {
  auto signer = make_hss_signer();
  if (!signer) return signer.error();
  return std::shared_ptr<stateful::Signer>(std::move(*signer));
}

Result<std::shared_ptr<Signer>> HssKeyBuild::make_hss_signer() {
  SignerOptions options;
  options.cache_path = hss_tree_cache_file(key_.state_file, 0);
  options.preferred_backend = preferred_;
  options.build.threads = threads_;
  return Signer::create(key_, public_key_, options, std::make_unique<TreeNodes>(std::move(tree_)));
}

// ---- HssPrivateKey as the stateful layer's PrivateKey ----

std::size_t HssPrivateKey::signature_bytes() const noexcept { return hss_signature_bytes(levels); }

stateful::TreeShape HssPrivateKey::top_tree() const { return tree_shape(levels.front()); }

std::string HssPrivateKey::tree_cache_file(const std::string& state_path, std::size_t layer) const {
  return hss_tree_cache_file(state_path, layer);
}

Result<std::shared_ptr<stateful::Signer>> HssPrivateKey::make_signer(ByteView public_key, const std::string& state_path,
                                                                     const stateful::BuildOptions& build) const {
  SignerOptions options;
  options.cache_path = hss_tree_cache_file(state_path, 0);
  options.build = build;
  auto created = Signer::create(*this, Bytes(public_key.begin(), public_key.end()), options);
  if (!created) return created.error();
  return std::shared_ptr<stateful::Signer>(std::move(*created));
}

}  // namespace klms::lms
