#include "stateful/keygen.h"

namespace klms::stateful {

Result<GeneratedKey> generate_key(const Scheme& scheme, const KeygenRequest& request) {
  if (Error e = scheme.check(); e != Error::kOk) return e;
  if (Error e = state::check_state_path(request.state_file); e != Error::kOk) return e;
  // Fail before hours of hashing, not after; create_state_file checks again, exclusively.
  if (Error e = state::check_state_file_creatable(request.state_file, request.state_options); e != Error::kOk) return e;
  if (Error e = state::check_witness_ready(request.state_options, scheme.max_signatures()); e != Error::kOk) return e;

  auto key = scheme.build_key(request.seed, request.state_file, request.build);
  if (!key) return key.error();

  const ParamsDigest params = scheme.params_digest();
  if (Error e = state::create_state_file(request.state_file, key_id_of((*key)->public_key()), scheme.max_signatures(),
                                         request.state_options, &params);
      e != Error::kOk) {
    return e;
  }
  auto signer = (*key)->make_signer();
  if (!signer) return signer.error();
  return GeneratedKey{std::move(*key), std::move(*signer)};
}

}  // namespace klms::stateful
