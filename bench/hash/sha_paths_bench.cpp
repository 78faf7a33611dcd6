// The sha256-hw backend's many-message paths one by one, for the "4-way interleaved SHA-NI"
// figure on CPUs where the backend table picks something else (16 AVX-512 lanes on Intel): SHA-NI
// with 1, 2, 4 and 8 messages interleaved, and the AVX-512 x16 / AVX2 x8 lane code, each on the
// 55-byte chain step at 8, 16 and 67 messages per call.
#include <string>
#include <vector>

#include "bench/hash/backend_bench.h"
#include "bench/hash/hash_bench_util.h"
#include "hashes/cpu_features.h"
#include "hashes/sha2/sha256_lanes.h"
#include "hashes/sha2/sha256_prefix.h"
#include "hashes/sha2/sha256_shani.h"

namespace klms::bench::hash {
namespace {

using ManyFunction = void (*)(const hashes::PrefixState&, const std::uint8_t* const*, std::size_t,
                              std::uint8_t* const*, std::size_t);

template <typename Many>
void chain_steps(benchmark::State& state, Many many, std::size_t count) {
  constexpr std::size_t kRestLen = 55 - kIdentifierBytes;
  const auto identifier = pattern(kIdentifierBytes, 7);
  hashes::PrefixState prefix;
  hashes::sha256::init_prefix(prefix, identifier.data());
  ChainInputs inputs(count);
  for (auto _ : state) {
    many(prefix, inputs.rests.data(), kRestLen, inputs.outs.data(), count);
    benchmark::ClobberMemory();
  }
  set_per_message(state, static_cast<double>(count), 55);
}

}  // namespace

void register_sha_path_benchmarks() {
  const hashes::CpuFeatures& f = hashes::cpu_features();
  if (!f.sha_ni) return;
  for (std::size_t count : {8u, 16u, 67u}) {
    const std::string suffix = "/hash_many/55/" + std::to_string(count);
    for (std::size_t width : {1u, 2u, 4u, 8u}) {
      add("sha256-path/sha-ni-x" + std::to_string(width) + suffix,
          [width](benchmark::State& s, std::size_t n) {
            chain_steps(
                s,
                [width](const hashes::PrefixState& p, const std::uint8_t* const* r, std::size_t l,
                        std::uint8_t* const* o, std::size_t c) {
                  hashes::sha256::shani::hash_many_interleaved(width, p, r, l, o, c);
                },
                n);
          },
          count);
    }
    if (f.avx512f && f.avx512vl) {
      add("sha256-path/avx512-x16" + suffix, chain_steps<ManyFunction>,
          ManyFunction{&hashes::sha256::lanes::hash_many_avx512}, count);
    }
    if (f.avx2) {
      add("sha256-path/avx2-x8" + suffix, chain_steps<ManyFunction>,
          ManyFunction{&hashes::sha256::lanes::hash_many_avx2}, count);
    }
  }
}

}  // namespace klms::bench::hash
