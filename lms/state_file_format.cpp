#include "lms/state_file_format.h"

#include <algorithm>
#include <cstring>

#include "hashes/families.h"

namespace klms::lms::state_format {
namespace {

void put_u32(std::uint8_t* p, std::uint32_t v) noexcept {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
void put_u64(std::uint8_t* p, std::uint64_t v) noexcept {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
std::uint32_t get_u32(const std::uint8_t* p) noexcept {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
std::uint64_t get_u64(const std::uint8_t* p) noexcept {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

void checksum(const std::uint8_t* slot_bytes, std::uint8_t* out32) noexcept {
  // The portable backend: no CPU dispatch on a path that runs once per reservation.
  hashes::sha256_portable_backend().digest(slot_bytes, kChecksummedBytes, out32);
}

bool has_magic(const std::uint8_t* p) noexcept { return std::memcmp(p, kMagic.data(), kMagic.size()) == 0; }

}  // namespace

void encode_slot(const Slot& slot, Block& block) noexcept {
  block.fill(0);
  std::uint8_t* p = block.data();
  std::memcpy(p, kMagic.data(), kMagic.size());
  put_u32(p + 8, kFormatVersion);
  put_u64(p + 16, slot.generation);
  put_u64(p + 24, slot.next);
  put_u64(p + 32, slot.max_signatures);
  std::memcpy(p + 40, slot.key_id.data(), slot.key_id.size());
  std::memcpy(p + 72, slot.instance_id.data(), slot.instance_id.size());
  put_u64(p + 88, slot.device);
  put_u64(p + 96, slot.inode);
  put_u32(p + 104, slot.reserving_pid);
  std::memcpy(p + 112, slot.file_handle.data(), slot.file_handle.size());
  checksum(p, p + kChecksummedBytes);
}

SlotStatus decode_slot(std::span<const std::uint8_t, kBlockBytes> block, Slot& out) noexcept {
  const std::uint8_t* p = block.data();
  if (!has_magic(p)) return SlotStatus::kNoMagic;
  // The version before the checksum: a newer format may checksum differently, and a slot of a newer
  // format must stop us even when damaged (it may be the current one).
  if (get_u32(p + 8) != kFormatVersion) return SlotStatus::kUnsupportedVersion;
  std::uint8_t expected[32];
  checksum(p, expected);
  // Not secret: a plain comparison is fine.
  if (std::memcmp(expected, p + kChecksummedBytes, sizeof expected) != 0) return SlotStatus::kBadChecksum;
  Slot s;
  s.generation = get_u64(p + 16);
  s.next = get_u64(p + 24);
  s.max_signatures = get_u64(p + 32);
  std::memcpy(s.key_id.data(), p + 40, s.key_id.size());
  std::memcpy(s.instance_id.data(), p + 72, s.instance_id.size());
  s.device = get_u64(p + 88);
  s.inode = get_u64(p + 96);
  s.reserving_pid = get_u32(p + 104);
  std::memcpy(s.file_handle.data(), p + 112, s.file_handle.size());
  if (s.max_signatures == 0 || s.next > s.max_signatures) return SlotStatus::kBadValues;
  out = s;
  return SlotStatus::kValid;
}

Result<Current> select_current(const FileImage& image, std::uint64_t size) noexcept {
  if (size == 0) return Error::kStateTruncated;
  const bool magic0 = size >= kMagic.size() && has_magic(image.data());
  const bool magic1 = size >= kBlockBytes + kMagic.size() && has_magic(image.data() + kBlockBytes);
  if (!magic0 && !magic1) return Error::kStateNotAStateFile;
  if (size < kFileBytes) return Error::kStateTruncated;
  if (size > kFileBytes) return Error::kStateCorrupt;

  Slot slots[kSlotCount];
  SlotStatus status[kSlotCount];
  for (unsigned b = 0; b < kSlotCount; ++b) {
    status[b] = decode_slot(std::span<const std::uint8_t, kBlockBytes>(image.data() + b * kBlockBytes, kBlockBytes),
                            slots[b]);
    if (status[b] == SlotStatus::kUnsupportedVersion) return Error::kStateUnsupportedVersion;
    // Checksummed but impossible: not a torn write of ours, so do not fall back to the other slot.
    if (status[b] == SlotStatus::kBadValues) return Error::kStateCorrupt;
  }
  const bool valid0 = status[0] == SlotStatus::kValid;
  const bool valid1 = status[1] == SlotStatus::kValid;
  if (!valid0 && !valid1) return Error::kStateCorrupt;
  if (valid0 != valid1) {  // one slot damaged: normal after a crash during its write
    const unsigned b = valid0 ? 0 : 1;
    return Current{slots[b], b};
  }
  const Slot& a = slots[0];
  const Slot& b = slots[1];
  if (a.key_id != b.key_id || a.max_signatures != b.max_signatures) return Error::kStateCorrupt;
  if (a.generation == b.generation) {
    // We never write two slots with one generation; identical copies are harmless, anything else is not.
    if (a == b) return Current{a, 0};
    return Error::kStateCorrupt;
  }
  const unsigned newer = a.generation > b.generation ? 0 : 1;
  if (slots[newer].next < slots[newer ^ 1].next) return Error::kStateCorrupt;  // an index went backwards
  return Current{slots[newer], newer};
}

bool same_file_handle(const FileHandleDigest& recorded, const FileHandleDigest* actual) noexcept {
  if (recorded == FileHandleDigest{} || actual == nullptr) return true;  // nothing to compare
  return recorded == *actual;
}

StateInfo make_info(const Slot& slot, std::uint64_t actual_device, std::uint64_t actual_inode,
                    const FileHandleDigest* actual_handle) noexcept {
  StateInfo info;
  info.key_id = slot.key_id;
  info.next = slot.next;
  info.max_signatures = slot.max_signatures;
  info.instance_id = slot.instance_id;
  info.device = slot.device;
  info.inode = slot.inode;
  info.generation = slot.generation;
  info.reserving_pid = slot.reserving_pid;
  info.actual_device = actual_device;
  info.actual_inode = actual_inode;
  info.file_handle_recorded = slot.file_handle != FileHandleDigest{};
  info.file_handle_changed = !same_file_handle(slot.file_handle, actual_handle);
  return info;
}

}  // namespace klms::lms::state_format
