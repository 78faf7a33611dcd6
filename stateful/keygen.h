// Key generation for any stateful scheme, in the one order that keeps a crash from costing more than
// a never-used state file (docs/state.md §3): the parameter set, the state file's path, that it can
// be created, that the witness is ready (all before hours of hashing, not after); then the scheme
// builds the top tree; then the state file is created exclusively, bound to the key id and the
// parameters digest; then the signer takes the tree and writes its cache.
#pragma once

#include <memory>
#include <string>

#include "base/error.h"
#include "state/store.h"
#include "stateful/scheme.h"
#include "stateful/tree_build.h"

namespace klms::stateful {

struct KeygenRequest {
  KeySeed seed;            // the parameter set's sizes (KeySizes::seed, ::identifier)
  std::string state_file;  // absolute path of the state file to create (stateful/state_location.h)
  state::StateOptions state_options;  // its checks, its witness, its T (docs/state.md §5)
  BuildOptions build;      // threads and progress of the top tree
};

struct GeneratedKey {
  std::unique_ptr<KeyBuild> key;   // the private key (for `state_file`) and the public key
  std::shared_ptr<Signer> signer;  // holds the top tree in memory
};

Result<GeneratedKey> generate_key(const Scheme& scheme, const KeygenRequest& request);

}  // namespace klms::stateful
