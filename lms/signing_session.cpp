#include "lms/signing_session.h"

#include <utility>

namespace klms::lms {

SessionOptions::operator stateful::SessionOptions() const {
  stateful::SessionOptions out;
  out.state = state;
  out.reserve = reserve;
  if (progress) {
    // The layer asks with the key it makes the signer for: through this header, an HssPrivateKey.
    out.progress = [progress = progress](const stateful::PrivateKey& key, const std::string& state_file,
                                         const std::string& cache_path) -> ProgressCallback {
      const auto* hss = dynamic_cast<const HssPrivateKey*>(&key);
      return hss != nullptr ? progress(hss->levels.front(), state_file, cache_path) : ProgressCallback();
    };
  }
  return out;
}

}  // namespace klms::lms
