#include "lms/keygen.h"

#include "lms/lms_sign.h"

namespace klms::lms {

Result<GeneratedKey> generate_key(const KeygenRequest& request) {
  if (Error e = check_generation_levels(request.levels); e != Error::kOk) return e;
  if (Error e = state::check_state_path(request.state_file); e != Error::kOk) return e;
  // Fail before hours of hashing, not after; create_state_file checks again, exclusively.
  if (Error e = state::check_state_file_creatable(request.state_file, request.state_options); e != Error::kOk) return e;
  if (Error e = state::check_witness_ready(request.state_options, max_signatures(request.levels)); e != Error::kOk) return e;

  HssPrivateKey key;
  key.levels = request.levels;
  key.seed = request.seed;
  key.identifier = request.identifier;
  key.seeded = request.seeded;
  key.state_file = request.state_file;

  const TreeKey top = top_tree_key(key, request.preferred_backend);
  auto tree = build_tree(top, request.build);
  if (!tree) return tree.error();
  Bytes public_key = hss_public_key(key, tree->root());

  const state::LevelsDigest levels = levels_digest_of(key.levels);
  if (Error e = state::create_state_file(key.state_file, key_id_of(public_key), max_signatures(key.levels),
                                  request.state_options, &levels);
      e != Error::kOk) {
    return e;
  }
  SignerOptions options;
  options.cache_path = key.state_file + ".cache";
  options.preferred_backend = request.preferred_backend;
  options.build.threads = request.build.threads;
  auto signer = Signer::create(key, public_key, options, std::make_unique<TreeNodes>(std::move(*tree)));
  if (!signer) return signer.error();
  GeneratedKey out{std::move(key), std::move(public_key), std::move(*signer)};
  return out;
}

}  // namespace klms::lms
