// Secret input passes through the stack frames of the WOTS+ code and the hash backends: private
// elements, chain values below the top, the PRF inputs holding SK_SEED (docs/threat-model.md
// "Secrets in memory"). Rather than wipe each frame on every call, key generation and signing call
// wipe_stack() once after each operation: it zeroes kWipedStackBytes just below the caller's frame,
// where every frame of the calls it made lay. The deepest XMSS path (wots_public_keys ->
// run_chains -> Hasher::chain_steps -> prf_addresses -> a backend's hash_many) uses about 96 KiB.
#pragma once

#include <cstddef>

namespace klms::xmss {

inline constexpr std::size_t kWipedStackBytes = 160 * 1024;

void wipe_stack() noexcept;

}  // namespace klms::xmss
