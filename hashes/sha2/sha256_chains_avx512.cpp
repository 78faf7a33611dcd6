// Backend::chain_steps of sha256-hw on 16 AVX-512 lanes (sha256_lanes.h "LM-OTS chains"): a file
// of its own so that it can be compiled with the scheduling flags that make it faster without
// deepening hash_many's stack (hashes/CMakeLists.txt).
#include "hashes/sha2/sha256_avx512_ops.h"

namespace klms::hashes::sha256::lanes {
namespace {

using Avx512Kernel = detail::Kernel<Avx512>;

}  // namespace

void chain_steps_avx512(const PrefixState& prefix, std::uint8_t* chains, std::size_t stride, std::size_t count,
                        std::size_t rest_len, unsigned from, unsigned to) noexcept {
  Avx512Kernel::chain_steps(prefix, chains, stride, count, rest_len, from, to);
}

}  // namespace klms::hashes::sha256::lanes
