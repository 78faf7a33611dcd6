// The hardware floor under "interleaved SHA-NI": one SHA-256 block is 64 rounds = 32 sha256rnds2
// instructions, so with enough independent messages in flight a block cannot cost less than 32 x the
// instruction's reciprocal throughput, and one message alone not less than 32 x its latency. These
// two loops measure both on this CPU (8 independent chains; 1 dependent chain), reported per
// instruction and as "ns/msg" = 32 instructions, i.e. per block.
#include <immintrin.h>

#include "bench/hash/backend_bench.h"
#include "bench/hash/hash_bench_util.h"
#include "hashes/cpu_features.h"

namespace klms::bench::hash {
namespace {

constexpr int kInstructionsPerBlock = 32;

[[gnu::target("sha,sse4.1")]] void rnds2_throughput(benchmark::State& state) {
  __m128i s0 = _mm_set1_epi32(1), s1 = _mm_set1_epi32(2), s2 = _mm_set1_epi32(3), s3 = _mm_set1_epi32(4);
  __m128i s4 = _mm_set1_epi32(5), s5 = _mm_set1_epi32(6), s6 = _mm_set1_epi32(7), s7 = _mm_set1_epi32(8);
  const __m128i b = _mm_set1_epi32(0x12345678), k = _mm_set1_epi32(0x0badf00d);
  for (auto _ : state) {
    for (int i = 0; i < 64; ++i) {  // 8 chains x 64 = 512 instructions per iteration
      s0 = _mm_sha256rnds2_epu32(s0, b, k);
      s1 = _mm_sha256rnds2_epu32(s1, b, k);
      s2 = _mm_sha256rnds2_epu32(s2, b, k);
      s3 = _mm_sha256rnds2_epu32(s3, b, k);
      s4 = _mm_sha256rnds2_epu32(s4, b, k);
      s5 = _mm_sha256rnds2_epu32(s5, b, k);
      s6 = _mm_sha256rnds2_epu32(s6, b, k);
      s7 = _mm_sha256rnds2_epu32(s7, b, k);
    }
    benchmark::DoNotOptimize(s0);
    benchmark::DoNotOptimize(s1);
    benchmark::DoNotOptimize(s2);
    benchmark::DoNotOptimize(s3);
    benchmark::DoNotOptimize(s4);
    benchmark::DoNotOptimize(s5);
    benchmark::DoNotOptimize(s6);
    benchmark::DoNotOptimize(s7);
  }
  set_per_message(state, 512.0 / kInstructionsPerBlock, 64);  // "ns/msg" = per 64-round block
}

[[gnu::target("sha,sse4.1")]] void rnds2_latency(benchmark::State& state) {
  __m128i s = _mm_set1_epi32(1);
  const __m128i b = _mm_set1_epi32(0x12345678), k = _mm_set1_epi32(0x0badf00d);
  for (auto _ : state) {
    for (int i = 0; i < 512; ++i) s = _mm_sha256rnds2_epu32(s, b, k);
    benchmark::DoNotOptimize(s);
  }
  set_per_message(state, 512.0 / kInstructionsPerBlock, 64);
}

}  // namespace

void register_shani_floor_benchmarks() {
  if (!hashes::cpu_features().sha_ni) return;
  add("floor/sha256rnds2-throughput-8-chains", rnds2_throughput);
  add("floor/sha256rnds2-latency-1-chain", rnds2_latency);
}

}  // namespace klms::bench::hash
