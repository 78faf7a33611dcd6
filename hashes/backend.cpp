#include "hashes/backend.h"

#include <array>
#include <cstring>

#include "hashes/cpu_features.h"
#include "hashes/family_table.h"

namespace klms::hashes {
namespace {

struct BackendTable {
  std::array<Backend, kBackendCount> all{};
  std::array<bool, kBackendCount> usable{};
  std::array<const Backend*, kBackendCount> available_list{};
  std::size_t available_count = 0;
};

// Built once, on first use, from the family rows (family_table.h); afterwards read-only, so any
// thread may read it without a lock. A backend this CPU cannot run is absent: never built, never
// listed, backend(id) null.
const BackendTable& table() noexcept {
  static const BackendTable built = [] {
    BackendTable t;
    for (const FamilyRow& f : family_rows()) {
      for (const BackendRow* row : {&f.portable, &f.fast}) {
        if (row->make == nullptr || (row->supported != nullptr && !row->supported())) continue;
        const auto index = static_cast<std::size_t>(row->id);
        t.all[index] = row->make();
        t.usable[index] = true;
      }
    }
    for (std::size_t i = 0; i < kBackendCount; ++i) {
      if (t.usable[i]) t.available_list[t.available_count++] = &t.all[i];
    }
    return t;
  }();
  return built;
}

const BackendRow* backend_row(BackendId id) noexcept {
  for (const FamilyRow& f : family_rows()) {
    for (const BackendRow* row : {&f.portable, &f.fast}) {
      if (row->make != nullptr && row->id == id) return row;
    }
  }
  return nullptr;
}

}  // namespace

const Backend* backend(BackendId id) noexcept {
  const auto index = static_cast<std::size_t>(id);
  return index < kBackendCount && table().usable[index] ? &table().all[index] : nullptr;
}

bool available(BackendId id) noexcept { return backend(id) != nullptr; }

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
  const FamilyRow& f = family_row(family);
  if (f.fast.make != nullptr) {
    if (const Backend* fast = backend(f.fast.id)) return *fast;
  }
  return *backend(f.portable.id);  // every CPU runs the portable backend (family_table.cpp checks)
}

namespace {

// Zeroes the top `bytes` of its own frame's array, i.e. the stack just below the caller. Never
// inlined (the array must be a frame of its own below the caller's), and the barrier tells the
// compiler the zeros are read, so the stores stay. No over-alignment: padding above the array would
// be stack the callee's frames used and the wipe misses (stack_wipe_test.cpp checks nothing is).
[[gnu::noinline]] void wipe_stack_below_caller(std::size_t bytes) noexcept {
  std::uint8_t area[kMaxHashStackBytes];
  if (bytes > sizeof area) bytes = sizeof area;
  std::uint8_t* start = area + sizeof area - bytes;
  std::memset(start, 0, bytes);
  asm volatile("" : : "r"(start) : "memory");
}

}  // namespace

[[gnu::noinline]] void wipe_vector_registers() noexcept {
#if defined(__x86_64__)
  // The real CPU, not cpu_features() (which KLMS_DISABLE_SIMD masks): glibc picks its copies by it.
  // Our own CPUID reading, not __builtin_cpu_supports: that links libgcc's __cpu_indicator_init, a
  // static initializer run at every load of klms.so (test/recipes/provider_load.t).
  const CpuFeatures& cpu = real_cpu_features();
  const bool avx = cpu.avx;
  const bool avx512 = cpu.avx512f;
  if (avx512) {
    // Not named as clobbers (a generic build has no names for them); a call clobbers them anyway.
    asm volatile(
        "vpxord %%zmm16, %%zmm16, %%zmm16\n\tvpxord %%zmm17, %%zmm17, %%zmm17\n\t"
        "vpxord %%zmm18, %%zmm18, %%zmm18\n\tvpxord %%zmm19, %%zmm19, %%zmm19\n\t"
        "vpxord %%zmm20, %%zmm20, %%zmm20\n\tvpxord %%zmm21, %%zmm21, %%zmm21\n\t"
        "vpxord %%zmm22, %%zmm22, %%zmm22\n\tvpxord %%zmm23, %%zmm23, %%zmm23\n\t"
        "vpxord %%zmm24, %%zmm24, %%zmm24\n\tvpxord %%zmm25, %%zmm25, %%zmm25\n\t"
        "vpxord %%zmm26, %%zmm26, %%zmm26\n\tvpxord %%zmm27, %%zmm27, %%zmm27\n\t"
        "vpxord %%zmm28, %%zmm28, %%zmm28\n\tvpxord %%zmm29, %%zmm29, %%zmm29\n\t"
        "vpxord %%zmm30, %%zmm30, %%zmm30\n\tvpxord %%zmm31, %%zmm31, %%zmm31" ::: "memory");
  }
  if (avx) {
    asm volatile("vzeroall" ::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
                 "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "memory");
  } else {
    asm volatile(
        "pxor %%xmm0, %%xmm0\n\tpxor %%xmm1, %%xmm1\n\tpxor %%xmm2, %%xmm2\n\tpxor %%xmm3, %%xmm3\n\t"
        "pxor %%xmm4, %%xmm4\n\tpxor %%xmm5, %%xmm5\n\tpxor %%xmm6, %%xmm6\n\tpxor %%xmm7, %%xmm7\n\t"
        "pxor %%xmm8, %%xmm8\n\tpxor %%xmm9, %%xmm9\n\tpxor %%xmm10, %%xmm10\n\tpxor %%xmm11, %%xmm11\n\t"
        "pxor %%xmm12, %%xmm12\n\tpxor %%xmm13, %%xmm13\n\tpxor %%xmm14, %%xmm14\n\tpxor %%xmm15, %%xmm15" :::
            "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",
            "xmm12", "xmm13", "xmm14", "xmm15", "memory");
  }
#endif
}

// By id, so that a wrapper (bench/study) that keeps the id wipes as the backend it wraps.
std::size_t hash_stack_bytes(const Backend& b) noexcept {
  const BackendRow* row = backend_row(b.id);
  return row != nullptr ? row->stack_bytes : kMaxHashStackBytes;
}

// The registers first, so that the stack wipe stays the last call (a tail call: its area starts
// right below the caller's frame).
void wipe_hash_stack(const Backend& b) noexcept {
  wipe_vector_registers();
  wipe_stack_below_caller(hash_stack_bytes(b));
}

}  // namespace klms::hashes
