// One measured configuration: a backend and the parameter sets of every HSS level.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hashes/backend.h"
#include "lms/params.h"

namespace klms::bench {

struct Config {
  const hashes::Backend* backend = nullptr;
  unsigned h = 0, w = 0, levels = 1, lower_h = 0;
  std::vector<lms::LevelParams> params;  // top level first

  std::string lms_names() const;  // "LMS_SHA256_M32_H10" or, per level, joined with '+'
  std::string ots_names() const;
  std::string label() const;      // "sha256-hw H10 W4 L1"
};

// Backends by name: "all" (every table backend this CPU runs), table names, and the variants of
// variant_backends.h. Unknown or unavailable names go to `error`.
std::vector<const hashes::Backend*> resolve_backends(const std::vector<std::string>& names, std::string& error);
// A backend by any of those names (the child process gets it by name).
const hashes::Backend* backend_by_name(const std::string& name) noexcept;

// n = m = 32 sets of the backend's hash family; lower levels have `lower_h` (0: h) and the same w.
std::optional<Config> make_config(const hashes::Backend& backend, unsigned h, unsigned w, unsigned levels,
                                  unsigned lower_h);

// Threads a request means on this machine (0 = every core).
unsigned effective_threads(unsigned requested) noexcept;

}  // namespace klms::bench
