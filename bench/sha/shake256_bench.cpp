// SHAKE256 (32-byte output): the one-block LMS inputs, hash_many, the bare permutation, throughput.
#include <string>

#include "bench/sha/sha_bench_inputs.h"
#include "hashes/families.h"
#include "hashes/cpu_features.h"
#include "hashes/keccak/keccak.h"
#include "hashes/keccak/shake256.h"

namespace klms::bench::sha {
namespace {

const hashes::Backend& shake() {
  static const hashes::Backend b = hashes::shake256_backend();
  return b;
}

void one_shot(benchmark::State& state, std::size_t rest_len) {
  hashes::PrefixState prefix;
  shake().init_prefix(prefix, pattern(16).data());
  auto rest = pattern(rest_len, 9);
  std::uint8_t out[32];
  for (auto _ : state) {
    shake().hash_one(prefix, rest.data(), rest_len, out);
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  set_per_message(state, 1, 16 + rest_len);
}

void chained(benchmark::State& state, std::size_t rest_len) {
  hashes::PrefixState prefix;
  shake().init_prefix(prefix, pattern(16).data());
  auto rest = pattern(kTmpOffset + 32, 9);
  constexpr int kSteps = 16;
  for (auto _ : state) {
    chain_steps(shake(), prefix, rest.data(), rest_len, kSteps);
    benchmark::DoNotOptimize(rest.data());
  }
  set_per_message(state, kSteps, 16 + rest_len);
}

using ManyFunction = void (*)(const hashes::PrefixState&, const std::uint8_t* const*, std::size_t,
                              std::uint8_t* const*, std::size_t) noexcept;

// hash_many through the given implementation (the backend's own when null).
void many_with(benchmark::State& state, ManyFunction function, std::size_t rest_len, std::size_t count) {
  if (function == nullptr) function = shake().hash_many;
  if (function == hashes::shake256::hash_many_x4_avx2 && !hashes::cpu_features().avx2) {
    state.SkipWithError("no AVX2 on this CPU");
    return;
  }
  if (function == hashes::shake256::hash_many_x8_avx512 && !hashes::cpu_features().avx512f) {
    state.SkipWithError("no AVX-512 on this CPU");
    return;
  }
  hashes::PrefixState prefix;
  shake().init_prefix(prefix, pattern(16).data());
  std::vector<std::vector<std::uint8_t>> buffers;
  std::vector<const std::uint8_t*> rests;
  std::vector<std::uint8_t*> outs;
  for (std::size_t k = 0; k < count; ++k) buffers.push_back(pattern(std::max<std::size_t>(rest_len, 32), k));
  for (auto& buf : buffers) {
    rests.push_back(buf.data());
    outs.push_back(buf.data());
  }
  for (auto _ : state) {
    function(prefix, rests.data(), rest_len, outs.data(), count);
    benchmark::ClobberMemory();
  }
  set_per_message(state, static_cast<double>(count), 16 + rest_len);
}

void permutation(benchmark::State& state) {
  hashes::keccak::State lanes = {};
  for (auto _ : state) {
    hashes::keccak::permute(lanes);
    benchmark::DoNotOptimize(lanes);
  }
  set_per_message(state, 1, 136);
}

void plain_digest(benchmark::State& state, std::size_t len) {
  auto in = pattern(len, 5);
  std::uint8_t out[32];
  for (auto _ : state) {
    shake().digest(in.data(), len, out);
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  set_per_message(state, 1, static_cast<double>(len));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * len));
}

[[maybe_unused]] const bool kRegistered = [] {
  for (std::size_t rest : {kChainRest32, kChainRest24}) {
    const std::string bytes = std::to_string(16 + rest);
    add("shake256/hash_one/" + bytes, one_shot, rest);
    add("shake256/chained/" + bytes, chained, rest);
  }
  add("shake256/keccak_f1600", permutation);
  add("shake256/digest/55", plain_digest, 55);
  add("shake256/digest/16384", plain_digest, 16384);
  for (std::size_t rest : {std::size_t{39}, std::size_t{70}, std::size_t{2150}}) {
    for (std::size_t count : {4u, 8u, 67u}) {
      const std::string shape = std::to_string(16 + rest) + "B/count:" + std::to_string(count);
      add("shake256/hash_many/" + shape, many_with, ManyFunction{nullptr}, rest, count);
      add("shake256/hash_many_avx2_x4/" + shape, many_with, ManyFunction{hashes::shake256::hash_many_x4_avx2}, rest, count);
      add("shake256/hash_many_avx512_x8/" + shape, many_with, ManyFunction{hashes::shake256::hash_many_x8_avx512}, rest,
          count);
    }
  }
  return true;
}();

}  // namespace
}  // namespace klms::bench::sha
