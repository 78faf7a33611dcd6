#pragma once

namespace klms::provider {

// Known-answer tests run when the provider loads: every digest family, every hash backend the
// provider uses against the portable code, and one HSS verification (and one rejection).
// Returns false and fills `failure` with what failed.
bool run_self_test(const char*& failure) noexcept;

}  // namespace klms::provider
