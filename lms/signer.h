// HSS signing from a private key, a tree cache and an index lease.
//
// Signing costs one LM-OTS signature plus a path lookup: the top tree comes from memory (after key
// generation), from the cache file (O(h) reads per signature, checked against the root), or is
// rebuilt once when the cache is missing or damaged; lower-level trees and their signed public keys
// are built when first needed, kept in memory and in their own cache files, and rebuilt when used
// up. A Signer is shared by threads: everything it caches is guarded, and each signature needs an
// IndexLease that only the state store hands out.
#pragma once

#include <memory>
#include <string>

#include "base/bytes.h"
#include "base/error.h"
#include "state/index_lease.h"
#include "lms/hss.h"
#include "lms/merkle_tree.h"
#include "lms/private_key.h"
#include "stateful/scheme.h"

namespace klms::lms {

struct SignerOptions {
  std::string cache_path;  // "<state file>.cache"; lower levels use "<cache_path>.level<N>". Empty: memory only.
  const hashes::Backend* preferred_backend = nullptr;  // study runs; null = fastest
  BuildOptions build;  // threads and progress for tree (re)builds
};

// The stateful layer's Signer (stateful/scheme.h) for HSS keys; its own begin/finish/sign are the
// same steps with the engine's types.
class Signer final : public stateful::Signer {
 public:
  // `top_tree`: the top level's nodes when the caller has them (right after key generation).
  static Result<std::shared_ptr<Signer>> create(HssPrivateKey key, Bytes hss_public_key, SignerOptions options,
                                                std::unique_ptr<TreeNodes> top_tree = nullptr);
  ~Signer() override;

  // One streaming signature: begin with a lease, feed the message, finish once — all in the
  // process that began it. A fork or clone of that process holds a copy it cannot use
  // (kForeignProcess): otherwise parent and child would each finish one index with other data.
  class Operation {
   public:
    // kOk, kLeaseConsumed after finish, kForeignProcess in another process.
    Error update(ByteView data) noexcept;
    bool owned_by_this_process() const noexcept;
    Operation(Operation&&) noexcept;
    Operation& operator=(Operation&&) noexcept;
    ~Operation();

   private:
    friend class Signer;
    struct State;
    explicit Operation(std::unique_ptr<State> state) noexcept;
    std::unique_ptr<State> state_;
  };

  // Consumes the lease (whatever happens next, its index is never offered again). A lease
  // reserved by another process is refused (kForeignProcess).
  Result<Operation> begin(state::IndexLease&& lease);
  Result<Bytes> finish(Operation&& operation);
  Result<Bytes> sign(state::IndexLease&& lease, ByteView message);

  // stateful::Signer: begin and finish with the layer's operation (the same object begin makes,
  // no other allocation).
  Result<std::unique_ptr<stateful::Operation>> begin_signature(state::IndexLease&& lease) override;
  Result<Bytes> finish_signature(std::unique_ptr<stateful::Operation> operation) override;

  std::size_t signature_bytes() const noexcept override;
  const Bytes& public_key() const noexcept;
  const HssPrivateKey& private_key() const noexcept;
  // Builds (or loads) the trees for index q without signing: warms caches, e.g. after keygen.
  Error prepare(std::uint64_t q);
  // Loads (or rebuilds) the top tree and checks that it is the public key's: callers do this
  // before reserving an index, so that a key whose private and public halves do not belong
  // together fails without using one up.
  Error load_top_tree() override;

  struct Impl;

 private:
  explicit Signer(std::unique_ptr<Impl> impl) noexcept;
  std::unique_ptr<Impl> impl_;
};

// docs/state.md §13: keys generated from a supplied seed sign only with KLMS_ALLOW_SEEDED_KEYS=1.
using stateful::seeded_keys_allowed;

// SHA-256 of the raw HSS public key: the key identity in state and cache files.
using stateful::key_id_of;

// What decides the trees a top-level one-time key signs and the public key does not name: the
// number of levels and every level's LMS and LM-OTS type (a child's SEED and I are derived from
// its parent's, which the public key's root already pins). SHA-256 of "KLMS levels" || u32 L ||
// (u32 LMS type, u32 LM-OTS type) per level, big-endian. Bound into the state file.
std::array<std::uint8_t, 32> levels_digest_of(const std::vector<LevelParams>& levels) noexcept;

}  // namespace klms::lms
