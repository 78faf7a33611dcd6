// What the stateful layer asks of a stateful hash-based signature scheme (docs/design.md "Stateful
// schemes"): HSS/LMS implements it in lms/ (lms/hss_scheme.h), XMSS and XMSS^MT will in xmss/.
// Everything around a key's state file — the signing recipe (stateful/signing_session.h), key
// generation's order of checks and durable steps (stateful/keygen.h), where state files live
// (stateful/state_location.h) — is written once against these interfaces.
//
// The interfaces sit on the per-signature path only: a virtual call begins, feeds and finishes a
// signature; the hashes inside a signature never cross them (no allocation or virtual call per hash).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/bytes.h"
#include "base/error.h"
#include "base/secret.h"
#include "state/index_lease.h"
#include "state/store.h"
#include "stateful/tree_build.h"

namespace klms::stateful {

class Scheme;
using state::KeyId;
using state::ParamsDigest;

// SHA-256 of a raw public key: the key's identity in state and tree-cache files, for every scheme.
KeyId key_id_of(ByteView public_key) noexcept;

// A parameters digest (state/store.h) for a scheme other than HSS: SHA-256 of "KLMS params" ||
// u8 length of `scheme_tag` || scheme_tag || `parameters` (the scheme's own encoding of everything
// its public key does not name). HSS keeps its original input (lms/hss_scheme.h), which begins
// with "KLMS levels" and so never equals one of these. A tag of 1..255 bytes (else all zero, which
// binds nothing: callers pass constants).
ParamsDigest tagged_params_digest(std::string_view scheme_tag, ByteView parameters);

// docs/state.md §13: keys generated from a supplied seed sign only with KLMS_ALLOW_SEEDED_KEYS=1.
bool seeded_keys_allowed() noexcept;

// The shape of a tree, for progress lines: "1,024 leaves, LMS_SHA256_M32_H10 with LMOTS_SHA256_N32_W4".
struct TreeShape {
  std::uint64_t leaves = 0;
  std::string parameters;  // the tree's parameter sets, as the scheme names them
};

// Sizes of a parameter set's keys and signatures, in bytes.
struct KeySizes {
  std::size_t seed = 0;        // the secret seed a private key is derived from (HSS: SEED, m bytes)
  std::size_t identifier = 0;  // the public value drawn with it (HSS: I, 16 bytes)
  std::size_t public_key = 0;  // the raw public key
  std::size_t signature = 0;   // one signature
};

// What a key's state file is bound to (docs/state.md §16): the key id of `public_key` and the
// parameter set's digest.
state::KeyBinding key_binding(const Scheme& scheme, ByteView public_key) noexcept;

// One signature in progress: begun with an index lease, fed the message, finished once by the
// signer that began it — all in the process that began it. A copy of the process holds one it
// cannot use (kForeignProcess): otherwise two processes would each finish one index with other data.
class Operation {
 public:
  virtual ~Operation() = default;
  // kOk, kLeaseConsumed after finish, kForeignProcess in another process.
  virtual Error update(ByteView data) noexcept = 0;
  virtual bool owned_by_this_process() const noexcept = 0;

 protected:
  Operation() = default;
  Operation(const Operation&) = default;
  Operation& operator=(const Operation&) = default;
};

// A key's signer for one state file: the key, its trees in memory and in their cache files. Shared
// by threads (everything it caches is guarded); each signature needs an index lease, which only the
// state store hands out, so a signer signs exactly the indices of the state file's range it is given.
class Signer {
 public:
  virtual ~Signer() = default;
  // Loads (or rebuilds) the top tree and checks it against the public key: callers do this before
  // reserving an index, so that a key whose halves do not belong together spends none.
  virtual Error load_top_tree() = 0;
  // Signing at the lease's index. Consumes the lease (whatever happens next, its index is never
  // offered again); a lease reserved by another process is refused (kForeignProcess).
  virtual Result<std::unique_ptr<Operation>> begin_signature(state::IndexLease&& lease) = 0;
  // The signature; the operation must be one this signer began (else kInvalidArgument).
  virtual Result<Bytes> finish_signature(std::unique_ptr<Operation> operation) = 0;
  virtual std::size_t signature_bytes() const noexcept = 0;

 protected:
  Signer() = default;
  Signer(const Signer&) = default;
  Signer& operator=(const Signer&) = default;
};

// A scheme's private key in memory: its secrets, its parameter sets, and what every stateful key
// has — the state file it belongs to and whether it came from a supplied seed. Never its index
// (docs/state.md "Where the state lives": copying a key file must not copy the state).
class PrivateKey {
 public:
  std::string state_file;  // absolute path
  bool seeded = false;     // SEED or identifier supplied (docs/state.md §13)

  virtual ~PrivateKey() = default;
  // The length of every signature of this key (a length query spends no index).
  virtual std::size_t signature_bytes() const noexcept = 0;
  // The top tree, for the lines about rebuilding it.
  virtual TreeShape top_tree() const = 0;
  // The tree-cache file of `layer` (0: the top) for a state file (Scheme::tree_cache_file).
  virtual std::string tree_cache_file(const std::string& state_path, std::size_t layer) const = 0;
  // A signer for `state_path` (the key's own state file, or another one for it, such as a lease),
  // its tree caches named from it; `build` says how a missing or damaged top-tree cache is rebuilt.
  // kMalformedPrivateKey when `public_key` is not this key's.
  virtual Result<std::shared_ptr<Signer>> make_signer(ByteView public_key, const std::string& state_path,
                                                      const BuildOptions& build) const = 0;

 protected:
  PrivateKey() = default;
  PrivateKey(const PrivateKey&) = default;
  PrivateKey(PrivateKey&&) = default;
  PrivateKey& operator=(const PrivateKey&) = default;
  PrivateKey& operator=(PrivateKey&&) = default;
};

// What key generation draws for a key: the secret seed and the public identifier, of the sizes the
// parameter set names (KeySizes), from a DRBG or supplied (seeded).
struct KeySeed {
  SecretBytes seed;
  Bytes identifier;
  bool seeded = false;
};

// A key whose top tree is built and whose state file does not exist yet (stateful/keygen.h).
class KeyBuild {
 public:
  virtual ~KeyBuild() = default;
  virtual const PrivateKey& private_key() const noexcept = 0;
  virtual const Bytes& public_key() const noexcept = 0;
  // Once, after the state file exists: the signer, holding the built tree in memory; writes the top
  // tree's cache file.
  virtual Result<std::shared_ptr<Signer>> make_signer() = 0;

 protected:
  KeyBuild() = default;
  KeyBuild(const KeyBuild&) = default;
  KeyBuild& operator=(const KeyBuild&) = default;
};

// One parameter set of a stateful scheme — an HSS level list, an XMSS or XMSS^MT set: what key
// generation and the state store need to know of it, and the scheme's own work behind it.
class Scheme {
 public:
  virtual ~Scheme() = default;

  // ---- Identity ----
  // The scheme's name in messages: "HSS/LMS", "XMSS", "XMSS^MT".
  virtual std::string_view family() const noexcept = 0;
  // kOk when keys of this set can be generated here; else why not (kInvalidArgument, ...).
  virtual Error check() const noexcept = 0;
  // What the state file is bound to besides the key id: everything that decides the one-time keys
  // and that the public key does not name (docs/state.md §16). New schemes use tagged_params_digest.
  virtual ParamsDigest params_digest() const noexcept = 0;
  // True when the public key names every parameter (HSS with L = 1, XMSS, XMSS^MT: the OID names
  // the layers): then a state file without a parameters digest may be bound whatever it signed.
  virtual bool params_in_key_id() const noexcept = 0;
  // The number of indices: the size of the state file's range (docs/state.md "Max signatures").
  virtual std::uint64_t max_signatures() const noexcept = 0;
  virtual KeySizes sizes() const noexcept = 0;
  // "an H10/H10 key", "an XMSS-SHA2_20_256 key": for progress lines.
  virtual std::string key_shape() const = 0;
  virtual TreeShape top_tree() const = 0;

  // ---- Files ----
  // The tree-cache file of `layer` (0: the top tree; lower layers of a multi-layer key, each with
  // the signature of its root by the layer above) for a state file. Every name must be one the
  // state store keeps free for caches: `<state file>.cache` or `<state file>.cache.level<N>`,
  // N <= 8 (state::is_tree_cache_name, state::kStateNameReserve); a scheme with more layers than
  // that caches only as many.
  virtual std::string tree_cache_file(const std::string& state_file, std::size_t layer) const = 0;

  // ---- Work ----
  // Key generation from a seed: the top tree (hours for the tallest: `build` reports progress and
  // may cancel, kCancelled), the public key and the private key for `state_file`. Writes nothing.
  virtual Result<std::unique_ptr<KeyBuild>> build_key(const KeySeed& seed, const std::string& state_file,
                                                      const BuildOptions& build) const = 0;
  // Stateless verification of a raw signature with a raw public key of this scheme.
  virtual Error verify(ByteView public_key, ByteView message, ByteView signature) const = 0;

 protected:
  Scheme() = default;
  Scheme(const Scheme&) = default;
  Scheme& operator=(const Scheme&) = default;
};

}  // namespace klms::stateful
