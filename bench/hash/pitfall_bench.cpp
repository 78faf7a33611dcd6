// The dispatch pitfall at the hash level: the same LSH-256 code reached through a wrapper that runs
// CPUID on every digest (lsh256_digest_naive_dispatch) and through the backend table, where the
// implementation was chosen once. The CPUID probe alone is timed too: on a virtual machine it traps
// to the hypervisor, and that exit is what the naive wrapper pays per digest. At 16 KiB the probe
// is amortized, which is why long-message benchmarks never show this.
#include <string>

#include "bench/hash/backend_bench.h"
#include "bench/hash/hash_bench_util.h"
#include "hashes/backend.h"
#include "hashes/cpu_features.h"
#include "hashes/lsh/lsh256.h"

namespace klms::bench::hash {
namespace {

using DigestFunction = void (*)(const std::uint8_t*, std::size_t, std::uint8_t*) noexcept;

void digest_through(benchmark::State& state, DigestFunction digest, std::size_t len) {
  auto in = pattern(len, 11);
  std::uint8_t out[32];
  for (auto _ : state) {
    digest(in.data(), len, out);
    in[0] = out[0];
    benchmark::ClobberMemory();
  }
  set_per_message(state, 1, static_cast<double>(len));
}

void cpuid_probe(benchmark::State& state) {
  for (auto _ : state) {
    const hashes::CpuFeatures f = hashes::detect_cpu_features_uncached();
    benchmark::DoNotOptimize(f);
  }
}

}  // namespace

void register_pitfall_benchmarks() {
  const hashes::Backend* once = hashes::find_backend("lsh256-simd");
  for (std::size_t len : {55u, 47u, 16384u}) {
    const std::string suffix = "/digest/" + std::to_string(len);
    add("pitfall/lsh256-naive-dispatch" + suffix, digest_through, &hashes::lsh256_digest_naive_dispatch, len);
    if (once != nullptr) add("pitfall/lsh256-dispatch-once" + suffix, digest_through, once->digest, len);
  }
  add("pitfall/cpuid-probe", cpuid_probe);
}

}  // namespace klms::bench::hash
