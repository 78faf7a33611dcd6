// LSH micro-benchmarks, per implementation: one-shot LSH-256 of the LMS message sizes (55 and 47
// bytes, plain and as I || rest), 16 KiB throughput, hash_many lanes, LSH-512, and the per-digest
// CPUID pitfall. Suggested run:
//   klms-lsh-bench --benchmark_repetitions=10 --benchmark_min_time=0.2 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "hashes/lsh/lsh256.h"
#include "hashes/lsh/lsh512.h"

namespace {

using klms::hashes::LshIsa;

std::vector<std::uint8_t> bytes(std::size_t len, std::uint8_t seed) {
  std::vector<std::uint8_t> v(len);
  for (std::size_t i = 0; i < len; ++i) v[i] = static_cast<std::uint8_t>(seed + 31 * i);
  return v;
}

void set_bytes_per_iteration(benchmark::State& state, std::size_t len) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * len));
}

// Plain one-shot LSH-256-256 of `len` bytes.
void lsh256_one_shot(benchmark::State& state, LshIsa isa, std::size_t len) {
  const klms::hashes::Lsh256Implementation& impl = *klms::hashes::lsh256_implementation(isa);
  const std::uint32_t* iv = klms::hashes::lsh256_iv(32);
  std::vector<std::uint8_t> in = bytes(len, 1);
  std::uint8_t out[32];
  for (auto _ : state) {
    impl.digest(iv, nullptr, 0, in.data(), len, out, 32);
    benchmark::DoNotOptimize(out);
    in[0] = out[0];  // a dependency between iterations, as in a hash chain
  }
  set_bytes_per_iteration(state, len);
}

// The LMS hot path: LSH-256-256(I || rest), I given separately (39 or 31 bytes of rest).
void lsh256_prefixed(benchmark::State& state, LshIsa isa, std::size_t rest_len) {
  const klms::hashes::Lsh256Implementation& impl = *klms::hashes::lsh256_implementation(isa);
  const std::uint32_t* iv = klms::hashes::lsh256_iv(32);
  const std::vector<std::uint8_t> identifier = bytes(16, 7);
  std::vector<std::uint8_t> rest = bytes(rest_len, 3);
  std::uint8_t out[32];
  for (auto _ : state) {
    impl.digest(iv, identifier.data(), 16, rest.data(), rest_len, out, 32);
    benchmark::DoNotOptimize(out);
    rest[0] = out[0];
  }
  set_bytes_per_iteration(state, 16 + rest_len);
}

// hash_many of `count` messages I || rest; reports the time per message as well.
void lsh256_hash_many(benchmark::State& state, LshIsa isa, std::size_t count, std::size_t rest_len) {
  const klms::hashes::Lsh256Implementation& impl = *klms::hashes::lsh256_implementation(isa);
  const std::vector<std::uint8_t> identifier = bytes(16, 7);
  std::vector<std::vector<std::uint8_t>> rests;
  std::vector<const std::uint8_t*> in;
  std::vector<std::uint8_t*> out;
  for (std::size_t k = 0; k < count; ++k) rests.push_back(bytes(rest_len, static_cast<std::uint8_t>(k)));
  for (auto& r : rests) {
    in.push_back(r.data());
    out.push_back(r.data() + rest_len - 32);  // in place, like the chain step
  }
  for (auto _ : state) {
    impl.hash_many(identifier.data(), in.data(), rest_len, out.data(), count);
    benchmark::ClobberMemory();
  }
  // Seconds per message (shown with an SI prefix, e.g. 45.1n).
  state.counters["per_msg"] = benchmark::Counter(
      static_cast<double>(count), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  set_bytes_per_iteration(state, count * (16 + rest_len));
}

void lsh512_one_shot(benchmark::State& state, LshIsa isa, std::size_t len) {
  const klms::hashes::Lsh512Implementation& impl = *klms::hashes::lsh512_implementation(isa);
  const std::uint64_t* iv = klms::hashes::lsh512_iv(64);
  std::vector<std::uint8_t> in = bytes(len, 1);
  std::uint8_t out[64];
  for (auto _ : state) {
    impl.digest(iv, in.data(), len, out, 64);
    benchmark::DoNotOptimize(out);
    in[0] = out[0];
  }
  set_bytes_per_iteration(state, len);
}

// The fastest implementation, chosen once (what the backends use) …
void lsh256_chosen_once(benchmark::State& state, std::size_t len) {
  const klms::hashes::Lsh256Implementation& impl = klms::hashes::lsh256_fastest();
  std::vector<std::uint8_t> in = bytes(len, 1);
  std::uint8_t out[32];
  for (auto _ : state) {
    impl.digest(klms::hashes::lsh256_iv(32), nullptr, 0, in.data(), len, out, 32);
    benchmark::DoNotOptimize(out);
    in[0] = out[0];
  }
  set_bytes_per_iteration(state, len);
}

// … against CPUID on every digest (the pitfall).
void lsh256_naive_dispatch(benchmark::State& state, std::size_t len) {
  std::vector<std::uint8_t> in = bytes(len, 1);
  std::uint8_t out[32];
  for (auto _ : state) {
    klms::hashes::lsh256_digest_naive_dispatch(in.data(), len, out);
    benchmark::DoNotOptimize(out);
    in[0] = out[0];
  }
  set_bytes_per_iteration(state, len);
}

const int kRegistered = [] {
  for (LshIsa isa : klms::hashes::kAllLshIsas) {
    if (!klms::hashes::lsh_isa_supported(isa)) continue;
    const std::string name(klms::hashes::lsh_isa_name(isa));
    // The message lanes differ from the AVX2 code in hash_many only: no one-shot or LSH-512 rows.
    const bool hash_many_only = isa == LshIsa::kAvx2MessageLanes;
    for (std::size_t len : {55u, 47u, 16384u}) {
      if (hash_many_only) break;
      benchmark::RegisterBenchmark(("lsh256_one_shot/" + name + "/" + std::to_string(len)).c_str(), lsh256_one_shot,
                                   isa, len);
    }
    for (std::size_t rest : {39u, 31u}) {
      if (hash_many_only) break;
      benchmark::RegisterBenchmark(("lsh256_prefixed/" + name + "/16+" + std::to_string(rest)).c_str(), lsh256_prefixed,
                                   isa, rest);
    }
    for (std::size_t count : {8u, 16u, 67u}) {
      benchmark::RegisterBenchmark(("lsh256_hash_many/" + name + "/" + std::to_string(count) + "x55").c_str(),
                                   lsh256_hash_many, isa, count, 39u);
    }
    benchmark::RegisterBenchmark(("lsh256_hash_many/" + name + "/16x2166").c_str(), lsh256_hash_many, isa, 16u, 2150u);
    for (std::size_t len : {55u, 16384u}) {
      if (hash_many_only) break;
      benchmark::RegisterBenchmark(("lsh512_one_shot/" + name + "/" + std::to_string(len)).c_str(), lsh512_one_shot,
                                   isa, len);
    }
  }
  benchmark::RegisterBenchmark("lsh256_dispatch/chosen_once/55", lsh256_chosen_once, 55u);
  benchmark::RegisterBenchmark("lsh256_dispatch/naive_cpuid_per_digest/55", lsh256_naive_dispatch, 55u);
  return 0;
}();

}  // namespace
