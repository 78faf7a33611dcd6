// XMSS and XMSS^MT signing at an index the caller gives, from cached trees (RFC 8391 §4.1.9, §4.2.4).
//
// The index is the caller's business: like the LMS engine, this library never decides on its own
// which index is next. It takes the index as a plain number, not as the engine's IndexLease
// (state/index_lease.h): a lease is only worth something because only the state store can make one,
// and xmss/ sits below state/ (docs/design.md "Libraries and layering"). The layer that owns the
// state reserves an index first and passes it here; the index is 64 bits wide so that such a value
// is never narrowed (a wrapped index would be a reused one).
//
// What a signature costs: one WOTS+ signature and a path read from the bottom layer's cached tree.
// Each layer keeps its current tree (xmss/tree.h: at most 4 MiB of nodes) and, above the bottom,
// its signature of the root of the layer below (as HSS keeps each level's signed public key), so a
// new tree of a layer is built only when the index enters it: key generation's top tree, then one
// tree per layer below on the first signature, then a bottom tree every 2^(h/d) signatures.
// Peak memory is bounded by d * 4 MiB of nodes plus a few hundred KiB of work space.
//
// Signing one index twice gives the same signature (r = PRF(SK_PRF, toByte(idx, 32))); signing two
// messages at one index breaks the scheme, which is why the index comes from a state store.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>

#include "base/bytes.h"
#include "base/error.h"
#include "hashes/backend.h"
#include "xmss/hasher.h"
#include "xmss/key_material.h"
#include "xmss/tree.h"

namespace klms::xmss {

struct SignerOptions {
  BuildOptions build;  // threads and progress for tree (re)builds
  const hashes::Backend* backend = nullptr;  // null = the fastest for the set's family
};

class Signer {
 public:
  // `top_tree`: the top layer's tree when the caller has it (from key generation); it must be the
  // key's (kMalformedPrivateKey otherwise). kBackendMismatch for a backend of another family.
  static Result<std::unique_ptr<Signer>> create(KeyMaterial key, SignerOptions options,
                                                std::unique_ptr<LayerTree> top_tree = nullptr);
  ~Signer();
  Signer(const Signer&) = delete;
  Signer& operator=(const Signer&) = delete;

  const Params& params() const noexcept { return key_.params; }
  const hashes::Backend& backend() const noexcept { return hasher_.backend(); }
  Bytes public_key() const { return key_.public_key(); }
  std::size_t signature_bytes() const noexcept { return key_.params.signature_bytes(); }

  // One signature with the message in pieces. begin() checks the index (kExhausted at or past
  // 2^h) and derives r; finish() computes the rest. Operations of one signer may run on several
  // threads; the trees are shared under a lock.
  class Operation {
   public:
    void update(ByteView data) noexcept;
    Operation(Operation&&) noexcept;
    Operation& operator=(Operation&&) noexcept;
    ~Operation();

   private:
    friend class Signer;
    struct State;
    explicit Operation(std::unique_ptr<State> state) noexcept;
    std::unique_ptr<State> state_;
  };
  Result<Operation> begin(std::uint64_t index);
  // kInvalidArgument for an operation already finished; kMalformedPrivateKey when the top tree the
  // key makes is not the public key's; kCancelled when a tree build's progress callback said stop.
  Result<Bytes> finish(Operation&& operation);
  Result<Bytes> sign(std::uint64_t index, ByteView message);

  // Builds the trees and layer signatures index needs, without signing (warms caches).
  Error prepare(std::uint64_t index);
  // Builds the top tree when the signer has none, and checks that its root is the public key's:
  // callers do this before reserving an index, so that a key whose halves do not belong together
  // fails without using one up.
  Error load_top_tree();
  // Bytes of tree nodes and layer signatures held now.
  std::size_t memory_bytes() const;

 private:
  Signer(KeyMaterial key, SignerOptions options, const hashes::Backend& backend);
  // With mutex_ held: the trees and upper-layer signatures for `index`.
  Error ensure_layers(std::uint64_t index);
  Error ensure_tree(unsigned layer, std::uint64_t tree);
  void sign_root(unsigned layer, const std::uint8_t* digest, std::uint64_t index_in_layer, std::uint8_t* out);

  KeyMaterial key_;
  SignerOptions options_;
  Hasher hasher_;
  mutable std::mutex mutex_;
  std::unique_ptr<LayerTree> trees_[kMaxLayers];
  // layer_signatures_[i] (i >= 1): layer i's signature of the root of trees_[i - 1], for the tree
  // of layer i - 1 numbered signed_tree_[i].
  Bytes layer_signatures_[kMaxLayers];
  std::uint64_t signed_tree_[kMaxLayers] = {};
};

}  // namespace klms::xmss
