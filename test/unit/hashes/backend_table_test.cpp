// The backend table: the eight study backends by name (an unsupported one absent), the family rows, each backend's prefixed hashing equal to
// its plain digest of I || rest and to the other backend of its family, the fastest-backend map,
// and the digest table the provider registers.
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
// its family, and its known answer is its backend's digest of "abc" (answers from test/data's
// shared vectors, as the provider's self-test checks them).
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
      EXPECT_EQ(hash_stack_bytes(*b), row->stack_bytes) << b->name;
      if (!f.self_test_digest.empty()) {
        std::uint8_t out[32];
        b->digest(reinterpret_cast<const std::uint8_t*>("abc"), 3, out);
        EXPECT_EQ(std::memcmp(out, f.abc_answer.data(), 32), 0) << b->name;
      }
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

// hash_one(prefix(I), rest) == digest(I || rest), and hash_many agrees, for lengths around the
// one-block sizes the LMS engine uses.
TEST(BackendTable, PrefixedHashingIsTheDigestOfIAndRest) {
  std::mt19937 rng(7);
  for (const Backend* b : available_backends()) {
    SCOPED_TRACE(std::string(b->name));
    std::array<std::uint8_t, 16> id{};
    for (auto& x : id) x = static_cast<std::uint8_t>(rng());
    PrefixState prefix;
    b->init_prefix(prefix, id.data());
    for (std::size_t rest_len : {0u, 22u, 30u, 31u, 38u, 39u, 54u, 70u, 111u, 112u, 2150u}) {
      std::vector<std::uint8_t> message(16 + rest_len);
      std::memcpy(message.data(), id.data(), 16);
      for (std::size_t i = 16; i < message.size(); ++i) message[i] = static_cast<std::uint8_t>(rng());
      std::uint8_t direct[32], prefixed[32], streamed[32];
      b->digest(message.data(), message.size(), direct);
      b->hash_one(prefix, message.data() + 16, rest_len, prefixed);
      EXPECT_EQ(std::memcmp(direct, prefixed, 32), 0) << rest_len;
      StreamState stream;
      b->stream_init(stream, prefix);
      b->stream_update(stream, message.data() + 16, rest_len);
      b->stream_final(stream, streamed);
      EXPECT_EQ(std::memcmp(direct, streamed, 32), 0) << rest_len;
      const std::uint8_t* rests[3] = {message.data() + 16, message.data() + 16, message.data() + 16};
      std::uint8_t outs[3][32];
      std::uint8_t* out_ptrs[3] = {outs[0], outs[1], outs[2]};
      b->hash_many(prefix, rests, rest_len, out_ptrs, 3);
      for (auto& o : outs) EXPECT_EQ(std::memcmp(direct, o, 32), 0) << rest_len;
    }
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
