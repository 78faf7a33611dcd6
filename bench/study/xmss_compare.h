// klms-bench --xmss-compare: K-LMS against K-XMSS (and LMS against XMSS on SHA-256) on the same
// backend, through the same hash functions: key generation (the tree on one thread), signing from
// the in-memory tree, verification, sizes, and the hash calls per operation by input length
// (counted by the wrapper of counting_backend.h) with the compression-function blocks they cost.
//
// LMS W = 2^w-bit digits against XMSS w = 2^W: LMS W4 and XMSS w = 16 both sign 4-bit digits
// (67 chains of 15 steps at n = 32); W2/w = 4 and W8/w = 256 likewise. An LM-OTS chain step is one
// hash (55 bytes); a WOTS+ chain step is three (two PRF calls for the key and the bitmask, then F,
// 96 bytes each). Both engines give the backend their calls together (hash_many): LMS per step over
// the chains of 16 leaves (or Backend::chain_steps), XMSS (the engine of xmss/, as the provider runs
// it) per step over the chains of 8 leaves (two PRFs + one F each), per level for the L-trees and
// the tree; on sha256-hw XMSS runs its fused chain kernel (hashes/sha2/sha256_xmss_chains.h) and
// one-compression PRFs, as LMS runs chain_steps there. The hash counts come from the counting
// wrapper, which takes the generic path, so they count what the definitions hash. Backends that
// hash one message at a time (lsh256-serial) make the one-message series: the same LSH-256 code
// without lanes, for both schemes.
#pragma once

#include "bench/study/options.h"

namespace klms::bench {

// Runs every backend x h x w of the options; CSV rows to options.csv, the per-length profile to
// options.profile_csv. Returns the process exit status.
int run_xmss_compare(const Options& options);

}  // namespace klms::bench
