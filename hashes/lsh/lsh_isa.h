// Which instruction-set level an LSH implementation needs, and whether this CPU has it.
// The answer comes from cpu_features(), which is computed once; callers keep the chosen
// implementation (a table pointer) instead of asking again per digest.
#pragma once

#include <cstdint>
#include <string_view>

#include "hashes/cpu_paths.h"

namespace klms::hashes {

enum class LshIsa : std::uint8_t {
  kPortable,  // plain C++
  kSse2,      // SSE2 + SSSE3 (pshufb), 128-bit
  kAvx2,      // AVX2, 128/256-bit; hash_many on 8 word-sliced lanes
  kAvx2MessageLanes,  // AVX2 as kAvx2, but hash_many with one message per 128-bit lane (4 at once)
  kAvx512,    // AVX-512F + AVX-512VL: the AVX2 code with vprold/vprolq, 16 lanes for hash_many
};

inline constexpr LshIsa kAllLshIsas[] = {LshIsa::kPortable, LshIsa::kSse2, LshIsa::kAvx2, LshIsa::kAvx2MessageLanes,
                                         LshIsa::kAvx512};

// "portable", "sse2", "avx2", "avx2msg", "avx512".
std::string_view lsh_isa_name(LshIsa isa) noexcept;
// The LSH level of a path-table entry (cpu_paths.h); paths LSH has not map to portable.
LshIsa lsh_isa_of(HashPath path) noexcept;

// Whether this CPU (as cpu_features() reports it) can run code of this level.
bool lsh_isa_supported(LshIsa isa) noexcept;

}  // namespace klms::hashes
