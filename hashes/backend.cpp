#include "hashes/backend.h"

#include <array>

#include "hashes/families.h"

namespace klms::hashes {
namespace {

struct BackendTable {
  std::array<Backend, kBackendCount> all{};
  std::array<bool, kBackendCount> usable{};
  std::array<const Backend*, kBackendCount> available_list{};
  std::size_t available_count = 0;
};

// Built once, on first use; afterwards read-only, so any thread may read it without a lock.
const BackendTable& table() noexcept {
  static const BackendTable built = [] {
    BackendTable t;
    auto put = [&t](Backend b, bool usable) {
      const auto index = static_cast<std::size_t>(b.id);
      t.all[index] = b;
      t.usable[index] = usable;
    };
    put(sha256_portable_backend(), true);
    const bool sha_hw = sha256_hw_supported();
    if (sha_hw) {
      put(sha256_hw_backend(), true);
    } else {
      // An unsupported SHA-NI backend still gets a table entry (named, never called). It is the
      // portable one renamed; put() would file it under the portable id and mark that unusable.
      Backend hw = sha256_portable_backend();
      hw.id = BackendId::kSha256Hw;
      hw.name = "sha256-hw";
      hw.implementation = "unavailable";
      put(hw, false);
    }
    put(lsh256_ref_backend(), true);
    put(lsh256_simd_backend(), true);
    put(tdm_cham_backend(), true);
    put(tdm_lea_backend(), true);
    put(tdm_aria_backend(), true);
    put(shake256_backend(), true);
    for (std::size_t i = 0; i < kBackendCount; ++i) {
      if (t.usable[i]) t.available_list[t.available_count++] = &t.all[i];
    }
    return t;
  }();
  return built;
}

}  // namespace

const Backend& backend(BackendId id) noexcept { return table().all[static_cast<std::size_t>(id)]; }

bool available(BackendId id) noexcept { return table().usable[static_cast<std::size_t>(id)]; }

const Backend* find_backend(std::string_view name) noexcept {
  for (const Backend* b : available_backends()) {
    if (b->name == name) return b;
  }
  return nullptr;
}

std::span<const Backend* const> available_backends() noexcept {
  const BackendTable& t = table();
  return {t.available_list.data(), t.available_count};
}

const Backend& fastest_backend(HashFamily family) noexcept {
  switch (family) {
    case HashFamily::kSha256:
      return available(BackendId::kSha256Hw) ? backend(BackendId::kSha256Hw)
                                             : backend(BackendId::kSha256Portable);
    case HashFamily::kShake256:
      return backend(BackendId::kShake256);
    case HashFamily::kLsh256:
      return backend(BackendId::kLsh256Simd);
    case HashFamily::kTdmCham:
      return backend(BackendId::kTdmCham);
    case HashFamily::kTdmLea:
      return backend(BackendId::kTdmLea);
    case HashFamily::kTdmAria:
      return backend(BackendId::kTdmAria);
  }
  return backend(BackendId::kSha256Portable);
}

}  // namespace klms::hashes
