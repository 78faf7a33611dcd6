// The backend table: the eight study backends by name (an unsupported one absent), the family rows,
// the backends of one family agreeing, the fastest-backend map, and the digest table the provider
// registers. Each backend's own entry points: backend_conformance_test.cpp.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <random>
#include <set>
#include <string>

#include "hashes/backend.h"
#include "hashes/digests.h"
#include "hashes/families.h"
#include "hashes/family_table.h"

namespace klms::hashes {
namespace {

TEST(BackendTable, EightNamedBackends) {
  const std::set<std::string> expected = {"sha256-portable", "sha256-hw", "lsh256-ref", "lsh256-simd",
                                          "tdm-cham",        "tdm-lea",   "tdm-aria",   "shake256"};
  std::set<std::string> names;
  for (std::size_t i = 0; i < kBackendCount; ++i) {
    const Backend* b = backend(static_cast<BackendId>(i));
    EXPECT_EQ(b != nullptr, available(static_cast<BackendId>(i))) << i;
    if (b == nullptr) continue;
    EXPECT_EQ(static_cast<std::size_t>(b->id), i);
    names.insert(std::string(b->name));
  }
  // Every backend but sha256-hw runs on every x86-64 CPU (SSE2 at least).
  std::set<std::string> want = expected;
  if (!sha256_hw_supported()) want.erase("sha256-hw");
  EXPECT_EQ(names, want);
  for (const Backend* b : available_backends()) {
    EXPECT_EQ(find_backend(b->name), b);
    EXPECT_GE(b->lanes, 1u);
    EXPECT_FALSE(b->implementation.empty());
  }
  EXPECT_EQ(find_backend("sha512"), nullptr);
}

// A backend this CPU cannot run is absent (ctest klms_hash_tests_no_simd runs this with SHA-NI
// hidden): no entry by id or name, and its family is served by its portable backend. It used to
// be the portable backend renamed, whose name and id then stood for code that is not SHA-NI.
TEST(BackendTable, AnUnsupportedBackendIsAbsent) {
  const bool hw = sha256_hw_supported();
  EXPECT_EQ(backend(BackendId::kSha256Hw) != nullptr, hw);
  EXPECT_EQ(find_backend("sha256-hw") != nullptr, hw);
  EXPECT_EQ(fastest_backend(HashFamily::kSha256).id, hw ? BackendId::kSha256Hw : BackendId::kSha256Portable);
  for (const Backend* b : available_backends()) EXPECT_NE(b->implementation, "unavailable") << b->name;
}

// The family rows (family_table.h) against the backends they build: each row's backends are of
// its family (its stack bound and "abc" answer per backend: backend_conformance_test.cpp).
TEST(FamilyTable, RowsMatchTheirBackends) {
  ASSERT_EQ(family_rows().size(), kHashFamilyCount);
  for (const FamilyRow& f : family_rows()) {
    SCOPED_TRACE(std::string(f.name));
    EXPECT_EQ(&family_row(f.family), &f);
    for (const BackendRow* row : {&f.portable, &f.fast}) {
      if (row->make == nullptr) continue;
      const Backend* b = backend(row->id);
      if (b == nullptr) {
        EXPECT_TRUE(row->supported != nullptr && !row->supported());
        continue;
      }
      EXPECT_EQ(b->family, f.family) << b->name;
    }
  }
}

// The table's compile-time check counts a backend as present by its stack bound
// (hashes/family_table.cpp rows_are_consistent): every row with a factory has one, and every row
// without has none.
TEST(FamilyTable, AbsentBackendsHaveNoStackBoundAndNoFactory) {
  for (const FamilyRow& f : family_rows()) {
    SCOPED_TRACE(std::string(f.name));
    for (const BackendRow* row : {&f.portable, &f.fast}) {
      EXPECT_EQ(row->make != nullptr, row->stack_bytes != 0);
      if (row->make == nullptr) {
        EXPECT_EQ(row->supported, nullptr);
      }
    }
    EXPECT_NE(f.portable.make, nullptr);
  }
}

TEST(BackendTable, BackendsOfOneFamilyAgree) {
  const std::pair<BackendId, BackendId> pairs[] = {{BackendId::kSha256Portable, BackendId::kSha256Hw},
                                                   {BackendId::kLsh256Ref, BackendId::kLsh256Simd}};
  std::vector<std::uint8_t> message(1000);
  for (std::size_t i = 0; i < message.size(); ++i) message[i] = static_cast<std::uint8_t>(i * 31 + 7);
  for (auto [id_a, id_b] : pairs) {
    if (!available(id_a) || !available(id_b)) continue;
    const Backend& a = *backend(id_a);
    const Backend& b = *backend(id_b);
    EXPECT_EQ(a.family, b.family);
    for (std::size_t len = 0; len <= message.size(); len += 37) {
      std::uint8_t x[32], y[32];
      a.digest(message.data(), len, x);
      b.digest(message.data(), len, y);
      EXPECT_EQ(std::memcmp(x, y, 32), 0) << a.name << " vs " << b.name << " at " << len;
    }
  }
}

TEST(BackendTable, FastestBackendServesItsFamily) {
  for (HashFamily f : {HashFamily::kSha256, HashFamily::kShake256, HashFamily::kLsh256, HashFamily::kTdmCham,
                       HashFamily::kTdmLea, HashFamily::kTdmAria}) {
    const Backend& b = fastest_backend(f);
    EXPECT_EQ(b.family, f) << b.name;
    EXPECT_TRUE(available(b.id)) << b.name;
  }
  if (available(BackendId::kSha256Hw)) {
    EXPECT_EQ(fastest_backend(HashFamily::kSha256).id, BackendId::kSha256Hw);
  }
  EXPECT_EQ(fastest_backend(HashFamily::kLsh256).id, BackendId::kLsh256Simd);
}

TEST(DigestTable, NamesSizesAndLookup) {
  struct Expected {
    const char* name;
    std::size_t block, out;
  };
  const Expected expected[] = {{"LSH-256-256", 128, 32}, {"LSH-256-224", 128, 28}, {"LSH-512-512", 256, 64},
                               {"LSH-512-384", 256, 48}, {"LSH-512-256", 256, 32}, {"LSH-512-224", 256, 28},
                               {"TDM-CHAM", 16, 32},     {"TDM-LEA", 16, 32},      {"TDM-ARIA", 16, 32}};
  const auto all = digest_algorithms();
  ASSERT_EQ(all.size(), std::size(expected));
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].name, expected[i].name);
    EXPECT_EQ(all[i].block_size, expected[i].block);
    EXPECT_EQ(all[i].output_size, expected[i].out);
    EXPECT_LE(all[i].context_size, kMaxDigestContextBytes);
    EXPECT_EQ(find_digest(expected[i].name), &all[i]);
  }
  EXPECT_EQ(find_digest("LSH-256"), nullptr);  // aliases live in the provider's name table
}

}  // namespace
}  // namespace klms::hashes
