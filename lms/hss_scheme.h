// HSS/LMS as a stateful scheme (stateful/scheme.h): a level list as the stateful layer sees a
// parameter set. The private key itself (lms/private_key.h) is the layer's PrivateKey and the
// signer (lms/signer.h) its Signer; this is the rest — identity, sizes, tree-cache names, key
// generation's tree and verification.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "hashes/backend.h"
#include "lms/merkle_tree.h"
#include "lms/params.h"
#include "lms/private_key.h"
#include "stateful/scheme.h"

namespace klms::lms {

// A view of a level list (the caller keeps `levels` alive while the scheme is used).
class HssScheme final : public stateful::Scheme {
 public:
  // `preferred`: the backend key generation builds with (study runs); null = fastest.
  explicit HssScheme(const std::vector<LevelParams>& levels, const hashes::Backend* preferred = nullptr) noexcept
      : levels_(&levels), preferred_(preferred) {}

  std::string_view family() const noexcept override { return "HSS/LMS"; }
  // L in 1..8, one hash family and one n (check_generation_levels, lms/hss.h).
  Error check() const noexcept override;
  // levels_digest_of (lms/signer.h): the input HSS state files were always bound with.
  stateful::ParamsDigest params_digest() const noexcept override;
  bool params_in_key_id() const noexcept override { return levels_->size() == 1; }
  std::uint64_t max_signatures() const noexcept override;
  stateful::KeySizes sizes() const noexcept override;
  std::string key_shape() const override;
  stateful::TreeShape top_tree() const override;
  // `<state file>.cache` for the top level, `<state file>.cache.level<N>` for level N = layer + 1
  // (docs/design.md "The tree cache file").
  std::string tree_cache_file(const std::string& state_file, std::size_t layer) const override;
  Result<std::unique_ptr<stateful::KeyBuild>> build_key(const stateful::KeySeed& seed, const std::string& state_file,
                                                        const stateful::BuildOptions& build) const override;
  Error verify(ByteView public_key, ByteView message, ByteView signature) const override;

  const std::vector<LevelParams>& levels() const noexcept { return *levels_; }

 private:
  const std::vector<LevelParams>* levels_;
  const hashes::Backend* preferred_;
};

class Signer;

// A key generation's key (HssScheme::build_key): the private key, its public key and the built top
// tree, until the signer takes the tree.
class HssKeyBuild final : public stateful::KeyBuild {
 public:
  HssKeyBuild(HssPrivateKey key, Bytes public_key, TreeNodes tree, const hashes::Backend* preferred, unsigned threads);

  const stateful::PrivateKey& private_key() const noexcept override { return key_; }
  const Bytes& public_key() const noexcept override { return public_key_; }
  Result<std::shared_ptr<stateful::Signer>> make_signer() override;

  // The engine's own types (lms/keygen.h): the signer, and the halves to move out afterwards.
  Result<std::shared_ptr<Signer>> make_hss_signer();
  HssPrivateKey& hss_key() noexcept { return key_; }
  Bytes& raw_public_key() noexcept { return public_key_; }

 private:
  HssPrivateKey key_;
  Bytes public_key_;
  TreeNodes tree_;
  const hashes::Backend* preferred_;
  unsigned threads_;
};

// The tree-cache name of `layer` for a state file, for any HSS key.
std::string hss_tree_cache_file(const std::string& state_file, std::size_t layer);

// "LMS_SHA256_M32_H10 with LMOTS_SHA256_N32_W4": one level's parameter sets, for messages.
std::string parameter_sets(const LevelParams& level);

}  // namespace klms::lms
