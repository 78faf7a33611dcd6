// 16 SHA-256 messages in the 32-bit lanes of zmm registers (the kernel is in sha256_lanes.h, its
// AVX-512 operations in sha256_avx512_ops.h): hash_many. chain_steps is sha256_chains_avx512.cpp.
#include "hashes/sha2/sha256_avx512_ops.h"

namespace klms::hashes::sha256::lanes {
namespace {

using Avx512Kernel = detail::Kernel<Avx512>;

}  // namespace

void hash_many_avx512_with(Tail tail, const PrefixState& prefix, const std::uint8_t* const* rests,
                           std::size_t rest_len, std::uint8_t* const* outs, std::size_t count) noexcept {
  Avx512Kernel::hash_many(tail, prefix, rests, rest_len, outs, count);
}

void hash_many_avx512(const PrefixState& prefix, const std::uint8_t* const* rests, std::size_t rest_len,
                      std::uint8_t* const* outs, std::size_t count) noexcept {
  Avx512Kernel::hash_many(Tail::kAuto, prefix, rests, rest_len, outs, count);
}

}  // namespace klms::hashes::sha256::lanes
