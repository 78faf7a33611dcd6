#include "hashes/backend.h"

#include <array>
#include <cstring>

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

namespace {

// Upper bounds of the stack a hash_one, hash_many or streaming call of each backend uses on the secret
// lengths (7 + n bytes after I; the cache MAC), from test/unit/hashes/stack_wipe_test.cpp, which
// prints the depths it measures and fails when a kernel grows beyond these. Measured on AMD EPYC
// (Zen 4; AVX-512 paths): sha256-portable 416 bytes, sha256-hw (SHA-NI + AVX-512 lanes) 4808,
// lsh256-ref 864, lsh256-simd (AVX-512) 5664, tdm-cham (AVX-512) 8256, tdm-lea 2456, tdm-aria
// (GFNI-AVX2) 2624, shake256 (AVX-512) 4480. Each bound is at least 1.7 times that, rounded to 4 KiB,
// for other compilers and the other instruction sets' code (whose vectors are no wider).
constexpr std::size_t kMaxStackWipe = 16 * 1024;

// Zeroes the top `bytes` of its own frame's array, i.e. the stack just below the caller. Never
// inlined (the array must be a frame of its own below the caller's), and the barrier tells the
// compiler the zeros are read, so the stores stay. No over-alignment: padding above the array would
// be stack the callee's frames used and the wipe misses (stack_wipe_test.cpp checks nothing is).
[[gnu::noinline]] void wipe_stack_below_caller(std::size_t bytes) noexcept {
  std::uint8_t area[kMaxStackWipe];
  if (bytes > sizeof area) bytes = sizeof area;
  std::uint8_t* start = area + sizeof area - bytes;
  std::memset(start, 0, bytes);
  asm volatile("" : : "r"(start) : "memory");
}

}  // namespace

std::size_t hash_stack_bytes(const Backend& b) noexcept {
  switch (b.id) {
    case BackendId::kSha256Portable:
    case BackendId::kLsh256Ref:
      return 4 * 1024;
    case BackendId::kSha256Hw:
    case BackendId::kTdmLea:
    case BackendId::kTdmAria:
    case BackendId::kShake256:
      return 8 * 1024;
    case BackendId::kLsh256Simd:
      return 12 * 1024;
    case BackendId::kTdmCham:
      break;
  }
  return kMaxStackWipe;
}

void wipe_hash_stack(const Backend& b) noexcept { wipe_stack_below_caller(hash_stack_bytes(b)); }

}  // namespace klms::hashes
