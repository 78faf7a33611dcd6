// OpenSSL's SHA-256 as a further reference. Run this binary twice: once as is (SHA-NI) and once with
//   OPENSSL_ia32cap=":~0x20000000"
// OPENSSL_ia32cap is "<CPUID.1 EDX:ECX mask>:<CPUID.7.0 EBX (low 32 bits) : ECX mask>"; the SHA
// extensions are bit 29 of CPUID.7.0:EBX, i.e. bit 29 of the second part, so "~0x20000000" there
// clears only that bit and OpenSSL 3.0 falls back to its AVX2/SSSE3 assembly. The benchmark names
// carry the variable's value so that both runs can go into one table.
//
// On OpenSSL 3.0, SHA256() is EVP_Q_digest: it fetches the algorithm from the provider on every
// call, which costs far more than the compression itself. SHA256_Init/Update/Final (deprecated, but
// still the bare assembly) shows what the code costs; the study uses that one as the software
// reference and reports both. A fetched EVP_MD with a reused context is what a careful EVP caller
// gets; SHAKE256 (32-byte output) the same way, as the reference for the shake256 backend.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/evp.h>
#include <openssl/sha.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "bench/hash/backend_bench.h"
#include "bench/hash/hash_bench_util.h"

namespace klms::bench::hash {
namespace {

void sha256_one_shot(benchmark::State& state, std::size_t len) {
  auto in = pattern(len, 9);
  std::uint8_t out[32];
  for (auto _ : state) {
    SHA256(in.data(), len, out);
    in[0] = out[0];
    benchmark::ClobberMemory();
  }
  set_per_message(state, 1, static_cast<double>(len));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * len));
}

void sha256_low_level(benchmark::State& state, std::size_t len) {
  auto in = pattern(len, 9);
  std::uint8_t out[32];
  for (auto _ : state) {
    SHA256_CTX ctx;
    SHA256_Init(&ctx);
    SHA256_Update(&ctx, in.data(), len);
    SHA256_Final(out, &ctx);
    in[0] = out[0];
    benchmark::ClobberMemory();
  }
  set_per_message(state, 1, static_cast<double>(len));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * len));
}

struct MdFree {
  void operator()(EVP_MD* md) const noexcept { EVP_MD_free(md); }
};
struct MdCtxFree {
  void operator()(EVP_MD_CTX* ctx) const noexcept { EVP_MD_CTX_free(ctx); }
};

// EVP_DigestInit/Update/Final on a fetched algorithm and a reused context; 32 bytes of output (the
// XOF length for SHAKE256).
void fetched_digest(benchmark::State& state, const char* algorithm, std::size_t len) {
  const std::unique_ptr<EVP_MD, MdFree> md(EVP_MD_fetch(nullptr, algorithm, nullptr));
  const std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
  if (!md || !ctx) {
    state.SkipWithError("EVP_MD_fetch or EVP_MD_CTX_new failed");
    return;
  }
  const bool xof = (EVP_MD_get_flags(md.get()) & EVP_MD_FLAG_XOF) != 0;
  auto in = pattern(len, 9);
  std::uint8_t out[32];
  for (auto _ : state) {
    const bool ok = EVP_DigestInit_ex(ctx.get(), md.get(), nullptr) == 1 &&
                    EVP_DigestUpdate(ctx.get(), in.data(), len) == 1 &&
                    (xof ? EVP_DigestFinalXOF(ctx.get(), out, sizeof out) : EVP_DigestFinal_ex(ctx.get(), out, nullptr)) == 1;
    if (!ok) {
      state.SkipWithError("EVP digest failed");
      break;
    }
    in[0] = out[0];
    benchmark::ClobberMemory();
  }
  set_per_message(state, 1, static_cast<double>(len));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * len));
}

}  // namespace

void register_openssl_benchmarks() {
  const char* cap = std::getenv("OPENSSL_ia32cap");
  const std::string variant = cap != nullptr && *cap != '\0' ? std::string("ia32cap=") + cap : "default";
  benchmark::AddCustomContext("OPENSSL_ia32cap", cap != nullptr ? cap : "(unset)");
  for (std::size_t len : {55u, 47u, 16384u}) {
    std::string suffix = "/";  // built piecewise: GCC 12 warns falsely (-Wrestrict) on "/" + to_string()
    suffix += std::to_string(len);
    suffix += "/";
    suffix += variant;
    add("openssl/SHA256()" + suffix, sha256_one_shot, len);
    add("openssl/SHA256_Init-Update-Final" + suffix, sha256_low_level, len);
    add("openssl/sha256-fetched-ctx" + suffix, fetched_digest, "SHA256", len);
    add("openssl/shake256-fetched-ctx" + suffix, fetched_digest, "SHAKE256", len);
  }
}

}  // namespace klms::bench::hash
