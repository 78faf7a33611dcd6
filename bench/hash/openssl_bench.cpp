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
// reference and reports both.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>

#include <cstdlib>
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
  }
}

}  // namespace klms::bench::hash
