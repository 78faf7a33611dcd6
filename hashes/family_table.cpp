#include "hashes/family_table.h"

#include "base/hex_literal.h"
#include "hashes/families.h"

namespace klms::hashes {
namespace {

// stack_bytes: upper bounds of the stack a hash_one, hash_many or streaming call of each backend
// uses on the secret lengths (7 + n bytes after I; the cache MAC), from
// test/unit/hashes/stack_wipe_test.cpp, which prints the depths it measures and fails when a kernel
// grows beyond these. Measured on AMD EPYC (Zen 4; AVX-512 paths): sha256-portable 416 bytes,
// sha256-hw (SHA-NI + AVX-512 lanes) 4808, lsh256-ref 864, lsh256-simd (AVX-512) 5664, tdm-cham
// (AVX-512) 8256, tdm-lea 2456, tdm-aria (GFNI-AVX2) 2624, shake256 (AVX-512) 4480. Each bound is
// at least 1.7 times that, rounded to 4 KiB, for other compilers and the other instruction sets'
// code (whose vectors are no wider).
//
// abc_answer: the digest of "abc" from the shared vectors (test/data), as the provider's
// self-test has checked them since it had one (provider/self_test.h).
constexpr std::array<FamilyRow, kHashFamilyCount> kRows = {{
    {HashFamily::kSha256, "sha256", "SHA256", "SHA2", 0,
     {BackendId::kSha256Portable, sha256_portable_backend, nullptr, 4 * 1024},
     {BackendId::kSha256Hw, sha256_hw_backend, sha256_hw_supported, 8 * 1024}, {}, {}},
    {HashFamily::kShake256, "shake256", "SHAKE", "SHAKE256", 0,
     {BackendId::kShake256, shake256_backend, nullptr, 8 * 1024}, {}, {}, {}},
    {HashFamily::kLsh256, "lsh256", "LSH256", "LSH256", 1,
     {BackendId::kLsh256Ref, lsh256_ref_backend, nullptr, 4 * 1024},
     {BackendId::kLsh256Simd, lsh256_simd_backend, nullptr, 12 * 1024}, "LSH-256-256",
     hex_bytes("5fbf365daea5446a7053c52b57404d77a07a5f48a1f7c1963a0898ba1b714741")},
    {HashFamily::kTdmCham, "tdm-cham", "TDMCHAM", "TDMCHAM", 2,
     {BackendId::kTdmCham, tdm_cham_backend, nullptr, kMaxHashStackBytes}, {}, "TDM-CHAM",
     hex_bytes("d3c0baa1f9a20e16af1b4efe8b86a8b365e3202141328ac494b05b3929d40d30")},
    {HashFamily::kTdmLea, "tdm-lea", "TDMLEA", "TDMLEA", 3,
     {BackendId::kTdmLea, tdm_lea_backend, nullptr, 8 * 1024}, {}, "TDM-LEA",
     hex_bytes("dcab29807ddd1e46787abf09339842909b67f994c92d5b63325eab5c8dd37c8f")},
    {HashFamily::kTdmAria, "tdm-aria", "TDMARIA", "TDMARIA", 4,
     {BackendId::kTdmAria, tdm_aria_backend, nullptr, 8 * 1024}, {}, "TDM-ARIA",
     hex_bytes("43086b980c7a881d3d0f491ab8ced44ea5f21ca5f100e9bf5dbe72d1cf5beda9")},
}};

// The table's own consistency, checked by the compiler: rows in HashFamily order, every backend id
// in exactly one row, every stack bound within what the wipe clears.
consteval bool rows_are_consistent() {
  std::array<int, kBackendCount> seen{};
  for (std::size_t i = 0; i < kRows.size(); ++i) {
    if (static_cast<std::size_t>(kRows[i].family) != i) return false;
    // A present backend is a row with a stack bound (an absent one is `{}`). Not `make != nullptr`:
    // a function's address is no constant expression under the sanitizers' clang build. That the
    // two agree is FamilyTable.AbsentBackendsHaveNoStackBoundAndNoFactory's (run time).
    for (const BackendRow* b : {&kRows[i].portable, &kRows[i].fast}) {
      if (b->stack_bytes == 0) continue;
      if (b->stack_bytes > kMaxHashStackBytes) return false;
      ++seen[static_cast<std::size_t>(b->id)];
    }
    if (kRows[i].portable.stack_bytes == 0 || kRows[i].portable.supported != nullptr) return false;
  }
  for (int n : seen) {
    if (n != 1) return false;
  }
  return true;
}
static_assert(rows_are_consistent(), "hashes/family_table.cpp: a row is out of order, a backend id is missing or "
                                     "doubled, a portable backend is conditional, or a stack bound is out of range");

}  // namespace

std::span<const FamilyRow> family_rows() noexcept { return kRows; }

const FamilyRow& family_row(HashFamily family) noexcept {
  const auto i = static_cast<std::size_t>(family);
  return i < kRows.size() ? kRows[i] : kRows[0];
}

}  // namespace klms::hashes
