// LSH-256 hash_many per ISA level, for the "8-lane AVX2 LSH-256" figure on CPUs where the
// backend table picks AVX-512 (16 lanes): the same 55-byte chain step through each implementation
// this CPU can run, at 8, 16 and 67 messages per call.
#include <string>
#include <vector>

#include "bench/hash/backend_bench.h"
#include "bench/hash/hash_bench_util.h"
#include "hashes/lsh/lsh256.h"

namespace klms::bench::hash {
namespace {

void lsh_hash_many(benchmark::State& state, const hashes::Lsh256Implementation* impl, std::size_t count) {
  constexpr std::size_t kRestLen = 55 - kIdentifierBytes;
  const auto identifier = pattern(kIdentifierBytes, 7);
  ChainInputs inputs(count);
  for (auto _ : state) {
    impl->hash_many(identifier.data(), inputs.rests.data(), kRestLen, inputs.outs.data(), count);
    benchmark::ClobberMemory();
  }
  set_per_message(state, static_cast<double>(count), 55);
}

}  // namespace

void register_lsh_isa_benchmarks() {
  for (hashes::LshIsa isa : hashes::kAllLshIsas) {
    const hashes::Lsh256Implementation* impl = hashes::lsh256_implementation(isa);
    if (impl == nullptr) continue;
    for (std::size_t count : {8u, 16u, 67u}) {
      std::string name = "lsh256-isa/";
      name += impl->name;
      name += "-x";
      name += std::to_string(impl->lanes);
      name += "/hash_many/55/";
      name += std::to_string(count);
      add(name, lsh_hash_many, impl, count);
    }
  }
}

}  // namespace klms::bench::hash
