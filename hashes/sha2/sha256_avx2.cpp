// 8 SHA-256 messages in the 32-bit lanes of ymm registers (the kernel is in sha256_lanes.h, its
// AVX2 operations in sha256_avx2_ops.h): hash_many.
#include "hashes/sha2/sha256_avx2_ops.h"

namespace klms::hashes::sha256::lanes {
namespace {

using Avx2Kernel = detail::Kernel<Avx2>;

}  // namespace

void hash_many_avx2_with(Tail tail, const PrefixState& prefix, const std::uint8_t* const* rests,
                         std::size_t rest_len, std::uint8_t* const* outs, std::size_t count) noexcept {
  Avx2Kernel::hash_many(tail, prefix, rests, rest_len, outs, count);
}

void hash_many_avx2(const PrefixState& prefix, const std::uint8_t* const* rests, std::size_t rest_len,
                    std::uint8_t* const* outs, std::size_t count) noexcept {
  Avx2Kernel::hash_many(Tail::kAuto, prefix, rests, rest_len, outs, count);
}

}  // namespace klms::hashes::sha256::lanes
