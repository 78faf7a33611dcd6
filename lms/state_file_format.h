// The on-disk layout of a state file (STATE.md §7), independent of any I/O.
//
// The file is exactly two 4 KiB blocks. Each block starts with one slot, little-endian:
//
//   offset  size  field
//        0     8  magic "KLMSSTAT"
//        8     4  format version (1)
//       12     4  reserved, 0
//       16     8  generation: +1 on every write; the valid slot with the larger one is current
//       24     8  next unused index
//       32     8  max signatures (next == max: exhausted)
//       40    32  key id: SHA-256 of the raw HSS public key
//       72    16  instance id: random, fresh at creation and adoption
//       88     8  device recorded at creation/adoption
//       96     8  inode recorded at creation/adoption
//      104     4  pid of the process that made the last reservation (informational)
//      108     4  reserved, 0
//      112    32  file handle digest recorded at creation/adoption: SHA-256 of the
//                 name_to_handle_at() handle (type and bytes; it includes the inode's generation,
//                 so a new file that reuses a freed inode number differs); all zero when the file
//                 system has no handles
//      144    32  SHA-256 of bytes 0..143
//
// and the rest of the block is zero. Writes alternate: a new slot always goes into the block that
// does not hold the current one, so a write torn by a crash damages only the older slot.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "lms/error.h"
#include "lms/state_store.h"

namespace klms::lms::state_format {

inline constexpr std::size_t kBlockBytes = 4096;
inline constexpr std::size_t kSlotCount = 2;
inline constexpr std::size_t kFileBytes = kBlockBytes * kSlotCount;
inline constexpr std::uint32_t kFormatVersion = 1;
inline constexpr std::array<std::uint8_t, 8> kMagic = {'K', 'L', 'M', 'S', 'S', 'T', 'A', 'T'};
inline constexpr std::size_t kChecksummedBytes = 144;
inline constexpr std::size_t kSlotBytes = kChecksummedBytes + 32;

struct Slot {
  std::uint64_t generation = 0;
  std::uint64_t next = 0;
  std::uint64_t max_signatures = 0;
  KeyId key_id{};
  InstanceId instance_id{};
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  std::uint32_t reserving_pid = 0;
  FileHandleDigest file_handle{};  // all zero: none recorded
  bool operator==(const Slot&) const = default;
};

enum class SlotStatus : std::uint8_t {
  kValid,
  kNoMagic,
  kUnsupportedVersion,
  kBadChecksum,
  kBadValues,  // checksum fine but next > max or max == 0: never written by us
};

using Block = std::array<std::uint8_t, kBlockBytes>;
using FileImage = std::array<std::uint8_t, kFileBytes>;

// The block for `slot`: the slot bytes, then zeros.
void encode_slot(const Slot& slot, Block& block) noexcept;
SlotStatus decode_slot(std::span<const std::uint8_t, kBlockBytes> block, Slot& out) noexcept;

// The slot a reader must use, and which block (0 or 1) holds it.
struct Current {
  Slot slot;
  unsigned block = 0;
};

// Chooses the current slot of a file whose first min(size, kFileBytes) bytes are in `image`:
//   size 0 or short: kStateTruncated; no magic in either block: kStateNotAStateFile;
//   longer than two blocks: kStateCorrupt; a slot of another format version: kStateUnsupportedVersion
//   (fail closed: it may be the newer one); no valid slot, a checksummed slot with impossible values,
//   or two valid slots that disagree on the key, the maximum, or order (the newer one's next is
//   lower): kStateCorrupt. One slot with a bad checksum is normal after a crash: the other is used.
Result<Current> select_current(const FileImage& image, std::uint64_t size) noexcept;

// For display: the slot's fields and where the file actually is now (`actual_handle` null when the
// file system gives none).
StateInfo make_info(const Slot& slot, std::uint64_t actual_device, std::uint64_t actual_inode,
                    const FileHandleDigest* actual_handle) noexcept;

// False only when both digests are known and differ: a different file with a reused inode number.
bool same_file_handle(const FileHandleDigest& recorded, const FileHandleDigest* actual) noexcept;

// The block a writer must overwrite next: the one not holding the current slot.
inline unsigned block_to_write(const Current& current) noexcept { return current.block ^ 1u; }
inline std::uint64_t block_offset(unsigned block) noexcept { return std::uint64_t{block} * kBlockBytes; }

}  // namespace klms::lms::state_format
