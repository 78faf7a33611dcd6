// The XMSS chain kernel (sha256_xmss_lanes.h) on 16 AVX-512 lanes.
#include "hashes/sha2/sha256_avx512_ops.h"
#include "hashes/sha2/sha256_xmss_lanes.h"

namespace klms::hashes::sha256::lanes {
namespace {

using XmssKernel = xmss::Kernel<Avx512>;

}  // namespace

void xmss_chains_avx512(const XmssChainConstants& c, XmssChain* chains, std::size_t count) noexcept {
  XmssKernel::run(c, chains, count);
}

}  // namespace klms::hashes::sha256::lanes
