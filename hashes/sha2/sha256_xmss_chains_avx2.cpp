// The XMSS chain kernel (sha256_xmss_lanes.h) on 8 AVX2 lanes.
#include "hashes/sha2/sha256_avx2_ops.h"
#include "hashes/sha2/sha256_xmss_lanes.h"

namespace klms::hashes::sha256::lanes {
namespace {

using XmssKernel = xmss::Kernel<Avx2>;

}  // namespace

void xmss_chains_avx2(const XmssChainConstants& c, XmssChain* chains, std::size_t count) noexcept {
  XmssKernel::run(c, chains, count);
}

}  // namespace klms::hashes::sha256::lanes
