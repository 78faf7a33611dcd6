// Keccak-f[1600] on several independent states at once, one state per vector element: element k of
// lanes[i] is lane i of state k. Only call after cpu_features() reported the instruction set.
#pragma once

#include <cstddef>
#include <cstdint>

#include "hashes/keccak/keccak.h"

namespace klms::hashes::keccak {

template <std::size_t Width>
struct alignas(64) MultiState {
  std::uint64_t lanes[kLanes][Width];
};

void permute_x4_avx2(MultiState<4>& states) noexcept;      // keccak_avx2.cpp
void permute_x8_avx512(MultiState<8>& states) noexcept;    // keccak_avx512.cpp (AVX-512F)

}  // namespace klms::hashes::keccak
