#include "lms/keygen.h"

#include "lms/hss_scheme.h"
#include "stateful/keygen.h"

namespace klms::lms {

// HSS through the stateful layer's key generation (stateful/keygen.h), which orders the checks and
// the durable steps; this only translates the request and the result.
Result<GeneratedKey> generate_key(const KeygenRequest& request) {
  const HssScheme scheme(request.levels, request.preferred_backend);
  if (Error e = scheme.check(); e != Error::kOk) return e;
  stateful::KeygenRequest r;
  const stateful::KeySizes sizes = scheme.sizes();
  r.seed.seed.assign(request.seed.data(), request.seed.data() + sizes.seed);
  r.seed.identifier.assign(request.identifier.begin(), request.identifier.end());
  r.seed.seeded = request.seeded;
  r.state_file = request.state_file;
  r.state_options = request.state_options;
  r.build = request.build;
  auto generated = stateful::generate_key(scheme, r);
  if (!generated) return generated.error();
  // This scheme made both (lms/hss_scheme.h): an HssKeyBuild and an lms::Signer.
  auto* build = dynamic_cast<HssKeyBuild*>(generated->key.get());
  auto signer = std::dynamic_pointer_cast<Signer>(generated->signer);
  if (build == nullptr || !signer) return Error::kInternal;
  GeneratedKey out{std::move(build->hss_key()), std::move(build->raw_public_key()), std::move(signer)};
  return out;
}

}  // namespace klms::lms
