#include "hashes/backend.h"

#include <array>
#include <cstring>

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

// By id, so that a wrapper (bench/study) that keeps the id wipes as the backend it wraps.
std::size_t hash_stack_bytes(const Backend& b) noexcept {
  const BackendRow* row = backend_row(b.id);
  return row != nullptr ? row->stack_bytes : kMaxHashStackBytes;
}

void wipe_hash_stack(const Backend& b) noexcept { wipe_stack_below_caller(hash_stack_bytes(b)); }

}  // namespace klms::hashes
