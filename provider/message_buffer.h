// A streamed message kept for verification (the signature, which starts the message hash with its
// randomizer, only arrives at the end on OpenSSL 3.0-3.3).
//
// Two costs of the obvious std::vector, both measured on `openssl pkeyutl -verify -rawin` of 1 MiB:
// - growth: a vector zero-fills and re-copies everything at each doubling (~3 MiB of fresh pages for
//   1 MiB fed in 4 KiB updates). Here bytes go into chunks that never move (16, 32, 64 KiB, then
//   2 MiB huge-page chunks doubling to 16 MiB): every byte is copied once, only pages that bytes land
//   on are touched, and past 112 KiB a page fault brings 2 MiB where transparent huge pages are on.
// - EVP_DigestVerifyFinal duplicates the signature context (so the caller's stays usable) and
//   finalises the copy: a deep copy of the message, as long as hashing it. Copies here share the
//   chunks (copy-on-write): a copy that is appended to while shared first takes its own.
#pragma once

#include <algorithm>
#include <sys/mman.h>

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <memory>
#include <vector>

#include "base/bytes.h"

namespace klms::provider {

class MessageBuffer {
 public:
  // Throws std::bad_alloc.
  void append(const unsigned char* data, std::size_t len) {
    if (len == 0) return;
    Chunks& chunks = own();
    while (len != 0) {
      if (chunks.empty() || chunks.back().used == chunks.back().capacity) add_chunk(chunks, len);
      Chunk& c = chunks.back();
      const std::size_t n = std::min(len, c.capacity - c.used);
      std::memcpy(c.bytes.get() + c.used, data, n);
      c.used += n;
      data += n;
      len -= n;
    }
  }
  void clear() noexcept { store_.reset(); }
  // The stored bytes in order, one view per chunk; valid until this buffer changes.
  std::vector<klms::ByteView> pieces() const {
    std::vector<klms::ByteView> out;
    if (!store_) return out;
    out.reserve(store_->size());
    for (const Chunk& c : *store_) out.emplace_back(c.bytes.get(), c.used);
    return out;
  }

 private:
  static constexpr std::size_t kFirstChunk = std::size_t{16} << 10;
  static constexpr std::size_t kLargestChunk = std::size_t{16} << 20;
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;
  struct Free {
    void operator()(unsigned char* p) const noexcept { std::free(p); }
  };
  struct Chunk {
    std::unique_ptr<unsigned char, Free> bytes;
    std::size_t capacity = 0;
    std::size_t used = 0;
  };
  using Chunks = std::vector<Chunk>;

  // Uninitialised: pages the message never reaches stay untouched. A chunk of 2 MiB or more is
  // aligned to 2 MiB and offered to transparent huge pages (one fault per 2 MiB instead of 512).
  static Chunk make_chunk(std::size_t capacity) {
    void* p = nullptr;
    const std::size_t align = capacity >= kHugePage ? kHugePage : 64;
    if (posix_memalign(&p, align, capacity) != 0) throw std::bad_alloc();
    if (capacity >= kHugePage) madvise(p, capacity - capacity % kHugePage, MADV_HUGEPAGE);  // a hint only
    return Chunk{std::unique_ptr<unsigned char, Free>(static_cast<unsigned char*>(p)), capacity, 0};
  }

  // 16, 32, 64 KiB (small messages touch little), then 2, 4, 8, 16, 16 ... MiB.
  static void add_chunk(Chunks& chunks, std::size_t wanted) {
    std::size_t capacity = kFirstChunk;
    if (!chunks.empty()) {
      const std::size_t last = chunks.back().capacity;
      capacity = last >= kHugePage ? std::min(last * 2, kLargestChunk) : last * 2 > kFirstChunk * 4 ? kHugePage : last * 2;
    }
    capacity = std::max(capacity, std::min(wanted, kLargestChunk));
    chunks.reserve(chunks.size() + 1);
    chunks.push_back(make_chunk(capacity));
  }

  // The chunks, unshared: a store another copy still holds is copied first (only its used bytes).
  Chunks& own() {
    if (!store_) {
      store_ = std::make_shared<Chunks>();
    } else if (store_.use_count() > 1) {
      auto mine = std::make_shared<Chunks>();
      std::size_t total = 0;
      for (const Chunk& c : *store_) total += c.used;
      if (total != 0) {  // one chunk of exactly what is stored (may exceed kLargestChunk)
        mine->push_back(make_chunk(total));
        for (const Chunk& c : *store_) {
          std::memcpy(mine->back().bytes.get() + mine->back().used, c.bytes.get(), c.used);
          mine->back().used += c.used;
        }
      }
      store_ = std::move(mine);
    } else {
      // The last owner: whatever other copies read before letting go happened before our writes.
      std::atomic_thread_fence(std::memory_order_acquire);
    }
    return *store_;
  }

  std::shared_ptr<Chunks> store_;
};

}  // namespace klms::provider
