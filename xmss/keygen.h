// XMSS and XMSS^MT key generation (RFC 8391 §4.1.7, §4.2.2, with SP 800-208's key derivation, as the
// reference implementation's xmssmt_core_seed_keypair): from SK_SEED, SK_PRF and SEED it builds the
// top layer's tree only (the whole tree for XMSS; for XMSS^MT the layer d-1 tree of 2^(h/d) leaves),
// on every core with progress, and returns the public key, the key material and that tree, which a
// Signer takes so that the first signature does not build it again.
#pragma once

#include <memory>

#include "base/bytes.h"
#include "base/error.h"
#include "hashes/backend.h"
#include "xmss/key_material.h"
#include "xmss/params.h"
#include "xmss/tree.h"

namespace klms::xmss {

struct GeneratedKey {
  KeyMaterial key;
  Bytes public_key;
  std::unique_ptr<LayerTree> top_tree;
};

// `backend`: null = the fastest for the set's family; else it must compute that family
// (kBackendMismatch). kBadSeedLength when a seed is not n bytes; kCancelled when the progress
// callback said stop.
Result<GeneratedKey> generate_key_from_seeds(const Params& params, ByteView sk_seed, ByteView sk_prf,
                                             ByteView pub_seed, const BuildOptions& options,
                                             const hashes::Backend* backend = nullptr);
// The same with the 3n seed bytes from getrandom(2) (kInternal when it fails).
Result<GeneratedKey> generate_key(const Params& params, const BuildOptions& options,
                                  const hashes::Backend* backend = nullptr);

// The backend a key of this set runs on: `preferred` when it computes the set's family, the fastest
// of the family when null; kBackendMismatch for a backend of another family.
Result<const hashes::Backend*> backend_for_set(const Params& params, const hashes::Backend* preferred) noexcept;

}  // namespace klms::xmss
