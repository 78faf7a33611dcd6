// The exhaustion threshold and its gate (docs/state.md §5 "Exhaustion is explicit"; RFC 10033 §3,
// docs/rfc10033.md "The exhaustion warning: should signing wait for an acknowledgement?"). One rule,
// used by `openssl pkey -text`, `klms-state show` (text and JSON), signing and `klms-state lease`.
#pragma once

#include <algorithm>
#include <cstdint>

namespace klms::state {

// T when the state file records none (<klms/klms.h> KLMS_DEFAULT_LOW_SIGNATURES_WARNING).
inline constexpr std::uint64_t kDefaultLowSignaturesWarning = 100;
// T is recorded in four bytes (state/file_format.h): a larger T is recorded as this.
inline constexpr std::uint64_t kMaxRecordedLowSignaturesWarning = 0xffffffffu;

// The last this many indices of a range warn and wait for the acknowledgement: min(T, range / 10),
// at least 1; 0 when T is 0 (never). The tenth keeps a small key from warning from its first
// signature; the fixed T keeps a large one from warning for months (docs/state.md §5).
constexpr std::uint64_t exhaustion_threshold(std::uint64_t low_signatures_warning, std::uint64_t range) noexcept {
  if (low_signatures_warning == 0) return 0;
  return std::max<std::uint64_t>(1, std::min(low_signatures_warning, range / 10));
}

// A reservation of `count` indices from `remaining` takes one of the last `threshold`: remaining <
// threshold + count (for one signature: remaining <= threshold). No overflow: count <= remaining.
constexpr bool takes_last_indices(std::uint64_t remaining, std::uint64_t count, std::uint64_t threshold) noexcept {
  return threshold != 0 && remaining - count < threshold;
}

}  // namespace klms::state
