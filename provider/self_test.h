#pragma once

#include <cstdint>

namespace klms::provider {

struct ProviderContext;

// The known-answer self-tests, one per algorithm group. Each runs once per process, on the first use
// of its group (not when the provider loads: that would charge every openssl process, including
// those that never touch klms, ~0.3 ms of hashing). A group's algorithms are unusable until its test
// has passed; after any failure every klms operation is refused (and the provider's status
// parameter reads 0), as if the provider had failed to load.
enum class SelfTest : std::uint8_t {
  kLsh256,   // LSH-256-256 and LSH-256-224 known answers: the LSH-256 digests
  kTdmCham,  // TDM-CHAM known answer: the TDM-CHAM digest
  kTdmLea,   // TDM-LEA known answer
  kTdmAria,  // TDM-ARIA known answer
  kLms,      // every digest family's known answer, the dispatched (SIMD, SHA-NI) backends against the
             // portable ones on the LMS hot path, one RFC 8554 HSS verification and one rejection:
             // before any key generation, signature or verification
};

// Runs `which` if this process has not yet, and says whether it (and every test run so far)
// passed. On failure raises "self-test failed: <what>" on the error queue (every time it is asked).
bool require_self_test(ProviderContext* ctx, SelfTest which) noexcept;
// Which test gates a digest (by its primary name); false for a digest without a known-answer test.
bool self_test_for_digest(const char* name, SelfTest& which) noexcept;
// False once any self-test has failed in this process.
bool no_self_test_failed() noexcept;

// Runs every test now, whatever ran before (for callers that want the load-time behaviour).
// Returns false and fills `failure` with what failed.
bool run_self_test(const char*& failure) noexcept;

}  // namespace klms::provider
