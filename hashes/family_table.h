// One row per hash family: everything that ties a family to its names, its type codes, its
// backends and its known answer. hashes/backend.cpp builds the backend table from it, lms/params.cpp
// and xmss/params.cpp their parameter sets, and the provider's self-test its digest checks and
// backend comparisons. Adding a backend is a row here, a folder, a CMake line and its tests
// (docs/development.md "Adding a hash backend").
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "hashes/backend.h"

namespace klms::hashes {

// The most stack wipe_hash_stack clears (hashes/backend.h); every row's stack_bytes is within it.
inline constexpr std::size_t kMaxHashStackBytes = 16 * 1024;

struct BackendRow {
  BackendId id{};
  Backend (*make)() noexcept = nullptr;      // null: the family has no such backend
  bool (*supported)() noexcept = nullptr;    // null: every CPU runs it; false: absent from the table
  std::size_t stack_bytes = 0;               // hash_stack_bytes (hashes/backend.h)
};

struct FamilyRow {
  HashFamily family{};
  std::string_view name;        // "sha256", "lsh256", "tdm-cham": the self-test's part name
  std::string_view lms_token;   // in LMS set names and -pkeyopt hash: LMS_<token>_M32_H10
  std::string_view xmss_token;  // in XMSS set names: XMSS-<token>_10_256, K-XMSS-<token>_10_256
  // The hash code of the K-LMS and K-XMSS type codes (docs/formats.md "Parameter sets"); 0: a
  // standard family, whose codes RFC 8554, RFC 8391 and SP 800-208 assign.
  std::uint8_t k_code = 0;
  BackendRow portable;  // plain C++: the reference the fast backend is checked against
  BackendRow fast;      // make null: the portable backend picks its own paths (one backend)
  // The provider digest checked against `abc_answer` (its digest of "abc") before the family's
  // algorithms run (provider/self_test.h); empty: the family has none in the provider.
  std::string_view self_test_digest;
  std::array<unsigned char, 32> abc_answer{};
};

// Every family, in HashFamily order.
std::span<const FamilyRow> family_rows() noexcept;
const FamilyRow& family_row(HashFamily family) noexcept;

}  // namespace klms::hashes
