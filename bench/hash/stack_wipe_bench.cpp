// What wiping the hash stack costs (docs/threat-model.md "Secrets in memory"): the engine calls
// hashes::wipe_hash_stack(backend) once after each operation on secret input (a PRF, a batch of
// private elements, the chain steps of a signature). Per backend, in one run:
//   secret/<backend>/hash_one/39            one PRF-sized hash (I || 39 bytes), no wipe
//   secret/<backend>/hash_one+wipe/39       the same followed by wipe_hash_stack: TreeKey::prf
//   secret/<backend>/wipe                   wipe_hash_stack alone
// The kernels themselves are unchanged by the wipe (it runs after them, outside the hot path).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

#include "hashes/backend.h"

namespace {

using klms::hashes::Backend;

void hash_one(benchmark::State& state, const Backend* b, bool wipe) {
  klms::hashes::PrefixState prefix;
  const std::uint8_t id[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  b->init_prefix(prefix, id);
  std::uint8_t rest[64] = {};
  for (auto _ : state) {
    b->hash_one(prefix, rest, 39, rest + 7);
    if (wipe) klms::hashes::wipe_hash_stack(*b);
    benchmark::DoNotOptimize(rest);
  }
}

void wipe_only(benchmark::State& state, const Backend* b) {
  for (auto _ : state) {
    klms::hashes::wipe_hash_stack(*b);
    benchmark::ClobberMemory();
  }
  state.counters["bytes"] = static_cast<double>(klms::hashes::hash_stack_bytes(*b));
}

[[maybe_unused]] const bool registered = [] {
  for (const Backend* b : klms::hashes::available_backends()) {
    const std::string base = "secret/" + std::string(b->name);
    benchmark::RegisterBenchmark((base + "/hash_one/39").c_str(), hash_one, b, false);
    benchmark::RegisterBenchmark((base + "/hash_one+wipe/39").c_str(), hash_one, b, true);
    benchmark::RegisterBenchmark((base + "/wipe").c_str(), wipe_only, b);
  }
  return true;
}();

}  // namespace
