#include "bench/study/config.h"

#include <thread>

#include "bench/study/variant_backends.h"

namespace klms::bench {

std::string Config::lms_names() const {
  std::string out;
  for (const lms::LevelParams& p : params) {
    if (!out.empty()) out += '+';
    out += p.lms->name;
  }
  return out;
}

std::string Config::ots_names() const {
  std::string out;
  for (const lms::LevelParams& p : params) {
    if (!out.empty()) out += '+';
    out += p.ots->name;
  }
  return out;
}

std::string Config::label() const {
  std::string out = std::string(backend->name) + " H" + std::to_string(h);
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "literal" + std::to_string().
  if (levels > 1) {
    out += '/';
    out += std::to_string(lower_h);
  }
  out += " W";
  out += std::to_string(w);
  out += " L";
  out += std::to_string(levels);
  return out;
}

const hashes::Backend* backend_by_name(const std::string& name) noexcept {
  if (const hashes::Backend* b = hashes::find_backend(name)) return b;
  return find_variant_backend(name);
}

std::vector<const hashes::Backend*> resolve_backends(const std::vector<std::string>& names, std::string& error) {
  std::vector<const hashes::Backend*> out;
  for (const std::string& name : names) {
    if (name == "all") {
      for (const hashes::Backend* b : hashes::available_backends()) out.push_back(b);
      continue;
    }
    const hashes::Backend* b = backend_by_name(name);
    if (b == nullptr) {
      error = "unknown or unavailable backend: " + name;
      return {};
    }
    out.push_back(b);
  }
  return out;
}

std::optional<Config> make_config(const hashes::Backend& backend, unsigned h, unsigned w, unsigned levels,
                                  unsigned lower_h) {
  Config c;
  c.backend = &backend;
  c.h = h;
  c.w = w;
  c.levels = levels;
  c.lower_h = lower_h != 0 ? lower_h : h;
  for (unsigned level = 0; level < levels; ++level) {
    const lms::LmsParams* l = lms::lms_for(backend.family, 32, level == 0 ? h : c.lower_h);
    const lms::OtsParams* o = lms::ots_for(backend.family, 32, w);
    if (l == nullptr || o == nullptr) return std::nullopt;
    c.params.push_back({l, o});
  }
  if (levels < 1 || levels > lms::kMaxLevels) return std::nullopt;
  return c;
}

unsigned effective_threads(unsigned requested) noexcept {
  if (requested != 0) return requested;
  const unsigned n = std::thread::hardware_concurrency();
  return n != 0 ? n : 1;
}

}  // namespace klms::bench
