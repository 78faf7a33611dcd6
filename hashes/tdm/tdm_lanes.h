// The hash_many implementations behind the Tandem-DM backends. The backend factories take the one
// the measured path table (cpu_paths.h) names; tests and benchmarks call them directly to cover
// every path on this CPU.
#pragma once

#include <cstddef>
#include <cstdint>

#include "hashes/backend.h"

namespace klms::hashes::tdm {

// Same contract as Backend::hash_many.
using HashManySignature = void(const PrefixState& prefix, const std::uint8_t* const* rests, std::size_t rest_len,
                               std::uint8_t* const* outs, std::size_t count) noexcept;

// Plain C++: CHAM and LEA one message at a time, ARIA two messages with interleaved rounds.
HashManySignature cham_hash_many_portable;
HashManySignature lea_hash_many_portable;
HashManySignature aria_hash_many_portable;

// Eight messages per AVX2 register (one per 32-bit lane). Only call when cpu_features().avx2.
inline constexpr std::size_t kAvx2Lanes = 8;
HashManySignature cham_hash_many_avx2;
HashManySignature lea_hash_many_avx2;

// AVX-512F/VL: sixteen messages per zmm register, a remainder of up to eight in ymm registers with the
// one-instruction rotate (the _8 functions, also usable alone). Only call when cpu_features() has
// avx512f and avx512vl.
inline constexpr std::size_t kAvx512Lanes = 16;
HashManySignature cham_hash_many_avx512;
HashManySignature lea_hash_many_avx512;
HashManySignature cham_hash_many_avx512vl_8;
HashManySignature lea_hash_many_avx512vl_8;

// TDM-ARIA with GFNI (S-boxes) and AVX2 (two ARIA states per register), four messages at once.
// Only call when cpu_features().avx2 and gfni_supported().
inline constexpr std::size_t kAriaGfniMessages = 4;
HashManySignature aria_hash_many_gfni_avx2;
// CPUID says GFNI (cpu_features().gfni, read once).
bool gfni_supported() noexcept;

}  // namespace klms::hashes::tdm
