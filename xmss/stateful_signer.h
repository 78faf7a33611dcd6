// The stateful layer's Signer (stateful/scheme.h) for XMSS and XMSS^MT keys: each signature at the
// index of a lease only the state store hands out, bound to the process that began it; the trees come
// from the key's tree store (xmss/tree_store.h), whose cache files sit next to the state file.
// Shared by threads. The engine's own signer (xmss/signer.h) signs at any index it is given and keeps
// its trees in memory; this one is the same signing with the state file's discipline around it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "base/bytes.h"
#include "base/error.h"
#include "state/index_lease.h"
#include "stateful/scheme.h"
#include "xmss/hasher.h"
#include "xmss/key_material.h"
#include "xmss/tree.h"
#include "xmss/tree_store.h"

namespace klms::xmss {

class StatefulSigner final : public stateful::Signer {
 public:
  // `state_path`: the tree caches are named from it (xmss/xmss_scheme.h tree_cache_file); empty: no
  // caches. `top_tree`: key generation's, or null. `seeded`: refused unless KLMS_ALLOW_SEEDED_KEYS=1.
  static Result<std::shared_ptr<StatefulSigner>> create(KeyMaterial key, const std::string& state_path, bool seeded,
                                                        BuildOptions build, std::unique_ptr<LayerTree> top_tree);
  ~StatefulSigner() override;
  StatefulSigner(const StatefulSigner&) = delete;
  StatefulSigner& operator=(const StatefulSigner&) = delete;

  Error load_top_tree() override;
  Result<std::unique_ptr<stateful::Operation>> begin_signature(state::IndexLease&& lease) override;
  Result<Bytes> finish_signature(std::unique_ptr<stateful::Operation> operation) override;
  std::size_t signature_bytes() const noexcept override { return key_.params.signature_bytes(); }
  // Bytes of tree nodes and layer signatures in memory (the cache files not counted).
  std::size_t memory_bytes() const { return store_->memory_bytes(); }

 private:
  struct Operation;
  StatefulSigner(KeyMaterial key, const hashes::Backend& backend, bool seeded);

  KeyMaterial key_;
  Hasher hasher_;
  bool seeded_ = false;
  std::unique_ptr<TreeStore> store_;
};

}  // namespace klms::xmss
