// HSS key generation: the top tree on every core, the public key, the state file (created
// exclusively, docs/state.md §3) and the tree cache — the stateful layer's key generation
// (stateful/keygen.h) with the engine's types in and out.
#pragma once

#include <memory>
#include <string>

#include "base/error.h"
#include "lms/hss.h"
#include "lms/merkle_tree.h"
#include "lms/private_key.h"
#include "lms/signer.h"
#include "state/store.h"

namespace klms::lms {

struct KeygenRequest {
  std::vector<LevelParams> levels;
  SecretArray<kMaxHashBytes> seed;  // the top level's m bytes: from a DRBG, or supplied (seeded = true)
  Identifier identifier{};
  bool seeded = false;
  std::string state_file;  // absolute path of the state file to create
  BuildOptions build;
  state::StateOptions state_options;
  const hashes::Backend* preferred_backend = nullptr;  // study runs; null = fastest
};

struct GeneratedKey {
  HssPrivateKey private_key;
  Bytes public_key;  // raw HSS public key
  std::shared_ptr<Signer> signer;  // holds the top tree in memory
};

Result<GeneratedKey> generate_key(const KeygenRequest& request);

}  // namespace klms::lms
