// klms-bench --xmss=SET,...: the XMSS engine on named sets (XMSS-SHA2_10_256, XMSSMT-SHA2_20/4_256,
// K-XMSS-LSH256_10_256, ...): key generation on each --threads count (the top tree: for XMSS^MT the
// top layer's), signing at successive indices from the signer's caches (for XMSS^MT the lower
// layers' trees are built as the index enters them, as a signer does: the mean counts them, the
// median is the common signature) and verification. For the SHA-256 sets with n = 32 it also gives
// the compressions key generation needs and the CPU time per compression, to hold against the
// floor of klms-hash-bench (floor/avx512-block-x16).
#pragma once

#include "bench/study/options.h"

namespace klms::bench {

int run_xmss_sets(const Options& options);

// SHA-256 compressions to generate a key of an XMSS SHA-256 set with n = 32 (the top tree): per
// leaf len PRF_keygen (3 blocks), len * (w - 1) chain steps (2 PRF + 2 F blocks), len - 1 L-tree
// nodes and, per tree node, 3 PRF + 3 H blocks. 0 for other sets.
double sha256_keygen_compressions(unsigned len, unsigned w, unsigned tree_height) noexcept;

}  // namespace klms::bench
