// OpenSSL's libcrypto on the same 55-byte input, for comparison. Run once normally and once with
// SHA-NI masked: OPENSSL_ia32cap=":~0x20000000" clears bit 29 of the second capability word
// (CPUID leaf 7 EBX), the SHA extensions bit, so OpenSSL falls back to its SSSE3/AVX2 code.
//
// In OpenSSL 3.0 SHA256() goes through EVP_Q_digest, which fetches the algorithm on every call; the
// low-level SHA256_Init/Update/Final (deprecated, but still the bare assembly) shows the compression
// speed itself, and a fetched EVP_MD with a reused context is what a careful EVP caller gets.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/evp.h>
#include <openssl/sha.h>

#include "bench/sha/sha_bench_inputs.h"

namespace klms::bench::sha {
namespace {

void openssl_sha256_one_shot(benchmark::State& state) {
  auto in = pattern(55, 9);
  std::uint8_t out[32];
  for (auto _ : state) {
    SHA256(in.data(), in.size(), out);
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  set_per_message(state, 1, 55);
}

void openssl_evp_digest(benchmark::State& state, const EVP_MD* md, std::size_t len) {
  auto in = pattern(len, 9);
  std::uint8_t out[64];
  unsigned out_len = 0;
  for (auto _ : state) {
    EVP_Digest(in.data(), in.size(), out, &out_len, md, nullptr);
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  set_per_message(state, 1, static_cast<double>(len));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * len));
}

void openssl_sha256_low_level(benchmark::State& state) {
  auto in = pattern(55, 9);
  std::uint8_t out[32];
  for (auto _ : state) {
    SHA256_CTX ctx;
    SHA256_Init(&ctx);
    SHA256_Update(&ctx, in.data(), in.size());
    SHA256_Final(out, &ctx);
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  set_per_message(state, 1, 55);
}

void openssl_sha256_fetched_ctx(benchmark::State& state, std::size_t len) {
  auto in = pattern(len, 9);
  std::uint8_t out[32];
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_MD* md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  for (auto _ : state) {
    EVP_DigestInit_ex(ctx, md, nullptr);
    EVP_DigestUpdate(ctx, in.data(), in.size());
    EVP_DigestFinal_ex(ctx, out, nullptr);
    benchmark::DoNotOptimize(out);
  }
  EVP_MD_free(md);
  EVP_MD_CTX_free(ctx);
  set_per_message(state, 1, static_cast<double>(len));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * len));
}

// SHAKE256 with a 32-byte output through a reused context (EVP_Digest cannot set the XOF length).
void openssl_shake256(benchmark::State& state, std::size_t len) {
  auto in = pattern(len, 9);
  std::uint8_t out[32];
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_MD* md = EVP_MD_fetch(nullptr, "SHAKE256", nullptr);
  for (auto _ : state) {
    EVP_DigestInit_ex(ctx, md, nullptr);
    EVP_DigestUpdate(ctx, in.data(), in.size());
    EVP_DigestFinalXOF(ctx, out, sizeof out);
    benchmark::DoNotOptimize(out);
  }
  EVP_MD_free(md);
  EVP_MD_CTX_free(ctx);
  set_per_message(state, 1, static_cast<double>(len));
}

[[maybe_unused]] const bool kRegistered = [] {
  add("openssl/SHA256()/55", openssl_sha256_one_shot);
  add("openssl/SHA256_Init-Update-Final/55", openssl_sha256_low_level);
  add("openssl/sha256-fetched-ctx/55", openssl_sha256_fetched_ctx, 55);
  add("openssl/sha256-fetched-ctx/16384", openssl_sha256_fetched_ctx, 16384);
  add("openssl/EVP_Digest-sha256/55", openssl_evp_digest, EVP_sha256(), 55);
  add("openssl/shake256-fetched-ctx/55", openssl_shake256, 55);
  return true;
}();

}  // namespace
}  // namespace klms::bench::sha
