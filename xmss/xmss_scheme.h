// XMSS and XMSS^MT (and K-XMSS) as stateful schemes (stateful/scheme.h; lms/hss_scheme.h is HSS's):
// a parameter set as the stateful layer sees it, the private key, key generation's build and the
// signer for a state file, whose trees live in cache files next to it (xmss/tree_store.h).
//
// The private key's octets (inside PKCS#8; docs/xmss.md "Keys in the provider"), big-endian:
//   "KXMS" | version 0x01 | u8 scheme (0 XMSS, 1 XMSS^MT) | u32 type code | SK_SEED (n) | SK_PRF (n)
//   | SEED (n) | u8 flags (bit 0: seeded) | u16 path length | state-file path (UTF-8, absolute)
// No index and no root (the root is the public key's, checked against the top tree before an index is
// spent). Anything else — other versions, unknown flags or codes, trailing bytes — is refused.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "base/bytes.h"
#include "base/error.h"
#include "base/secret.h"
#include "stateful/scheme.h"
#include "xmss/params.h"
#include "xmss/tree.h"
#include "xmss/tree_cache.h"

namespace klms::xmss {

inline constexpr std::uint8_t kPrivateKeyVersion = 1;
inline constexpr std::size_t kMaxStatePathBytes = 4096;
// XMSS^MT layers with a cache file of their own: the names the state store keeps free for caches
// stop at `.cache.level8` (state::kStateNameReserve). A key with more layers (60/12) caches its top
// eight; the trees of the layers below (2^5 leaves each) are rebuilt in each new process.
inline constexpr unsigned kCachedLayers = 8;

// The parameters digest's scheme tag (stateful::tagged_params_digest): "XMSS" or "XMSSMT", with the
// type code as the parameters; the public key holds the code but not the registry it is from.
stateful::ParamsDigest params_digest_of(const Params& params) noexcept;

// `<state file>.cache` for the top layer, `<state file>.cache.level<N>` for the N-th layer from
// the top (N = 2 .. kCachedLayers); empty for a layer beyond those. `layer_from_top` 0 is the top.
std::string tree_cache_file(const std::string& state_file, std::size_t layer_from_top);

struct XmssPrivateKey final : stateful::PrivateKey {
  const Params* params = nullptr;  // one of all_params()
  SecretArray<kMaxN> sk_seed, sk_prf;
  std::array<std::uint8_t, kMaxN> pub_seed{};

  std::size_t signature_bytes() const noexcept override;
  stateful::TreeShape top_tree() const override;
  std::string tree_cache_file(const std::string& state_path, std::size_t layer) const override;
  Result<std::shared_ptr<stateful::Signer>> make_signer(ByteView public_key, const std::string& state_path,
                                                        const stateful::BuildOptions& build) const override;
};

SecretBytes encode_private_key(const XmssPrivateKey& key);
// kMalformedPrivateKey for a layout, kUnknownXmssType for a code of no set here, kStatePathInvalid.
Result<XmssPrivateKey> decode_private_key(ByteView encoded);
// kOk when `public_key` is a key of `key`'s set and SEED (the root is checked by the signer).
Error check_halves(const XmssPrivateKey& key, ByteView public_key) noexcept;

// `openssl pkey -check`: kOk when the top tree's cache file of the key's own state file is absent,
// not this private key's, or names the public key's root; kMalformedPrivateKey when it is this
// private key's (its MAC, keyed from SK_PRF, says so) and names another root.
Error check_top_tree_cache(const XmssPrivateKey& key, ByteView public_key);

class XmssScheme final : public stateful::Scheme {
 public:
  explicit XmssScheme(const Params& params) noexcept : params_(&params) {}

  std::string_view family() const noexcept override;
  Error check() const noexcept override;
  stateful::ParamsDigest params_digest() const noexcept override { return params_digest_of(*params_); }
  bool params_in_key_id() const noexcept override { return true; }
  std::uint64_t max_signatures() const noexcept override { return params_->leaves(); }
  // seed: SK_SEED || SK_PRF (2n); identifier: SEED (n).
  stateful::KeySizes sizes() const noexcept override;
  std::string key_shape() const override;
  stateful::TreeShape top_tree() const override;
  std::string tree_cache_file(const std::string& state_file, std::size_t layer) const override {
    return xmss::tree_cache_file(state_file, layer);
  }
  Result<std::unique_ptr<stateful::KeyBuild>> build_key(const stateful::KeySeed& seed, const std::string& state_file,
                                                        const stateful::BuildOptions& build) const override;
  Error verify(ByteView public_key, ByteView message, ByteView signature) const override;

  const Params& params() const noexcept { return *params_; }

 private:
  const Params* params_;
};

// Key generation's key: the private and public key, the top tree, and its cache file written as the
// tree grew, committed once the state file exists (make_signer).
class XmssKeyBuild final : public stateful::KeyBuild {
 public:
  XmssKeyBuild(XmssPrivateKey key, Bytes public_key, std::unique_ptr<LayerTree> top_tree,
               std::optional<TreeCacheWriter> cache, unsigned threads);
  ~XmssKeyBuild() override;

  const stateful::PrivateKey& private_key() const noexcept override { return key_; }
  const Bytes& public_key() const noexcept override { return public_key_; }
  Result<std::shared_ptr<stateful::Signer>> make_signer() override;

  XmssPrivateKey& xmss_key() noexcept { return key_; }

 private:
  XmssPrivateKey key_;
  Bytes public_key_;
  std::unique_ptr<LayerTree> top_tree_;
  std::optional<TreeCacheWriter> cache_;
  unsigned threads_;
};

}  // namespace klms::xmss
