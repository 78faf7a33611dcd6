// Micro-benchmarks of the block ciphers and the Tandem-DM hashes: key schedule + one encryption,
// one-shot LMS-sized hashes (plain and from the saved prefix), hash_many per message, 16 KiB.
// Run with --benchmark_repetitions=N and read the medians.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "hashes/blockcipher/aria.h"
#include "hashes/blockcipher/cham.h"
#include "hashes/cpu_features.h"
#include "hashes/families.h"
#include "hashes/blockcipher/lea.h"
#include "hashes/tdm/tdm_lanes.h"

namespace klms::hashes {
namespace {

std::uint8_t g_key[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                          17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};

// Key schedule plus one block; the output becomes the next key's first bytes so iterations chain.
template <class Keys, void (*Expand)(const std::uint8_t*, Keys&), void (*Encrypt)(const Keys&, const std::uint8_t*, std::uint8_t*)>
void BM_KeyScheduleAndEncrypt(benchmark::State& state) {
  std::uint8_t key[32], block[16] = {};
  for (int i = 0; i < 32; ++i) key[i] = g_key[i];
  Keys keys{};
  for (auto _ : state) {
    Expand(key, keys);
    Encrypt(keys, block, key);
    benchmark::DoNotOptimize(key);
  }
}
BENCHMARK(BM_KeyScheduleAndEncrypt<cham::RoundKeys, cham::expand_key, cham::encrypt>)->Name("cipher/CHAM-128-256");
BENCHMARK(BM_KeyScheduleAndEncrypt<lea::RoundKeys, lea::expand_key128, lea::encrypt>)->Name("cipher/LEA-128");
BENCHMARK(BM_KeyScheduleAndEncrypt<lea::RoundKeys, lea::expand_key192, lea::encrypt>)->Name("cipher/LEA-192");
BENCHMARK(BM_KeyScheduleAndEncrypt<lea::RoundKeys, lea::expand_key256, lea::encrypt>)->Name("cipher/LEA-256");
BENCHMARK(BM_KeyScheduleAndEncrypt<aria::RoundKeys, aria::expand_key128, aria::encrypt>)->Name("cipher/ARIA-128");
BENCHMARK(BM_KeyScheduleAndEncrypt<aria::RoundKeys, aria::expand_key192, aria::encrypt>)->Name("cipher/ARIA-192");
BENCHMARK(BM_KeyScheduleAndEncrypt<aria::RoundKeys, aria::expand_key256, aria::encrypt>)->Name("cipher/ARIA-256");

// The word-level forms Tandem-DM calls (LEA-256 fused schedule; CHAM and ARIA schedule + encrypt).
void BM_Lea256Fused(benchmark::State& state) {
  std::uint32_t key[8] = {1, 2, 3, 4, 5, 6, 7, 8}, x[4] = {};
  for (auto _ : state) {
    lea::encrypt256_words(key, x);
    key[0] ^= x[0];
    benchmark::DoNotOptimize(x);
  }
}
BENCHMARK(BM_Lea256Fused)->Name("cipher-words/LEA-256-fused");

void BM_ChamWords(benchmark::State& state) {
  std::uint32_t key[8] = {1, 2, 3, 4, 5, 6, 7, 8}, x[4] = {}, rk[16];
  for (auto _ : state) {
    cham::expand_key_words(key, rk);
    cham::encrypt_words(rk, x);
    key[0] ^= x[0];
    benchmark::DoNotOptimize(x);
  }
}
BENCHMARK(BM_ChamWords)->Name("cipher-words/CHAM-128-256");

void BM_AriaWords(benchmark::State& state) {
  std::uint32_t key[8] = {1, 2, 3, 4, 5, 6, 7, 8}, x[4] = {}, ek[17][4];
  for (auto _ : state) {
    aria::expand_key_words(key, key + 4, 16, ek);
    aria::encrypt_words(ek, 16, x);
    key[0] ^= x[0];
    benchmark::DoNotOptimize(x);
  }
}
BENCHMARK(BM_AriaWords)->Name("cipher-words/ARIA-256");

const Backend& backend_for(int which) {
  static const Backend backends[3] = {tdm_cham_backend(), tdm_lea_backend(), tdm_aria_backend()};
  return backends[which];
}
const char* kNames[3] = {"TDM-CHAM", "TDM-LEA", "TDM-ARIA"};

// Plain one-shot TDM(m) of len bytes.
void BM_Digest(benchmark::State& state, int which, std::size_t len) {
  const Backend& b = backend_for(which);
  std::vector<std::uint8_t> m(len, 0x5a);
  std::uint8_t out[32];
  for (auto _ : state) {
    b.digest(m.data(), m.size(), out);
    m[0] = out[0];
    benchmark::DoNotOptimize(out);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * len));
}

// TDM(I || rest) from the saved state after I.
void BM_FromPrefix(benchmark::State& state, int which, std::size_t rest_len) {
  const Backend& b = backend_for(which);
  PrefixState prefix;
  const std::uint8_t identifier[16] = {9, 8, 7};
  b.init_prefix(prefix, identifier);
  std::vector<std::uint8_t> rest(rest_len, 0x33);
  std::uint8_t out[32];
  for (auto _ : state) {
    b.hash_one(prefix, rest.data(), rest.size(), out);
    rest[0] = out[0];
    benchmark::DoNotOptimize(out);
  }
}

// hash_many of `count` 39-byte rests (55-byte messages), reported per message.
void BM_Many(benchmark::State& state, int which, tdm::HashManySignature* many, std::size_t count) {
  const Backend& b = backend_for(which);
  if (many == nullptr) many = b.hash_many;
  PrefixState prefix;
  const std::uint8_t identifier[16] = {1};
  b.init_prefix(prefix, identifier);
  std::vector<std::vector<std::uint8_t>> buffers(count, std::vector<std::uint8_t>(39, 0x11));
  std::vector<const std::uint8_t*> in(count);
  std::vector<std::uint8_t*> out(count);
  for (std::size_t k = 0; k < count; ++k) {
    buffers[k][0] = static_cast<std::uint8_t>(k);
    in[k] = buffers[k].data();
    out[k] = buffers[k].data();  // in place, like the chain step
  }
  for (auto _ : state) {
    many(prefix, in.data(), 39, out.data(), count);
    benchmark::ClobberMemory();
  }
  state.counters["per_message"] = benchmark::Counter(static_cast<double>(count),
                                                     benchmark::Counter::kIsIterationInvariantRate |
                                                         benchmark::Counter::kInvert);
}

[[maybe_unused]] const bool g_registered = [] {
  for (int which = 0; which < 3; ++which) {
    const std::string name = kNames[which];
    benchmark::RegisterBenchmark((name + "/oneshot-55").c_str(), BM_Digest, which, std::size_t{55});
    benchmark::RegisterBenchmark((name + "/oneshot-47").c_str(), BM_Digest, which, std::size_t{47});
    benchmark::RegisterBenchmark((name + "/prefix-55").c_str(), BM_FromPrefix, which, std::size_t{39});
    benchmark::RegisterBenchmark((name + "/prefix-47").c_str(), BM_FromPrefix, which, std::size_t{31});
    benchmark::RegisterBenchmark((name + "/16KiB").c_str(), BM_Digest, which, std::size_t{16384});
    for (std::size_t count : {8, 16, 67}) {
      const std::string suffix = "/count:" + std::to_string(count);
      benchmark::RegisterBenchmark((name + "/many-backend" + suffix).c_str(), BM_Many, which, nullptr, count);
    }
  }
  tdm::HashManySignature* portable[3] = {tdm::cham_hash_many_portable, tdm::lea_hash_many_portable,
                                         tdm::aria_hash_many_portable};
  for (int which = 0; which < 3; ++which)
    for (std::size_t count : {8, 16, 67})
      benchmark::RegisterBenchmark((std::string(kNames[which]) + "/many-portable/count:" + std::to_string(count)).c_str(),
                                   BM_Many, which, portable[which], count);
  if (cpu_features().avx2) {
    tdm::HashManySignature* lanes[2] = {tdm::cham_hash_many_avx2, tdm::lea_hash_many_avx2};
    for (int which = 0; which < 2; ++which)
      for (std::size_t count : {1, 2, 3, 8, 16, 67})
        benchmark::RegisterBenchmark((std::string(kNames[which]) + "/many-avx2/count:" + std::to_string(count)).c_str(),
                                     BM_Many, which, lanes[which], count);
  }
  if (cpu_features().avx512f && cpu_features().avx512vl) {
    tdm::HashManySignature* wide[2] = {tdm::cham_hash_many_avx512, tdm::lea_hash_many_avx512};
    tdm::HashManySignature* narrow[2] = {tdm::cham_hash_many_avx512vl_8, tdm::lea_hash_many_avx512vl_8};
    for (int which = 0; which < 2; ++which) {
      for (std::size_t count : {1, 2, 3, 8, 9, 16, 67})
        benchmark::RegisterBenchmark((std::string(kNames[which]) + "/many-avx512/count:" + std::to_string(count)).c_str(),
                                     BM_Many, which, wide[which], count);
      for (std::size_t count : {1, 2, 3, 8, 16, 67})
        benchmark::RegisterBenchmark((std::string(kNames[which]) + "/many-avx512vl8/count:" + std::to_string(count)).c_str(),
                                     BM_Many, which, narrow[which], count);
    }
  }
  if (cpu_features().avx2 && tdm::gfni_supported()) {
    for (std::size_t count : {1, 2, 3, 4, 8, 16, 67})
      benchmark::RegisterBenchmark(("TDM-ARIA/many-gfni-avx2/count:" + std::to_string(count)).c_str(), BM_Many, 2,
                                   tdm::aria_hash_many_gfni_avx2, count);
  }
  return true;
}();

}  // namespace
}  // namespace klms::hashes
