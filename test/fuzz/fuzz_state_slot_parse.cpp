// The state-file slot parser (state/file_format.h) on arbitrary images: decode_slot of each block
// and select_current of the whole file.
//
// Input: one flags byte, then
//   bit 1 clear, "raw":     the file's bytes (the size is the input's; up to 8 KiB go into the image);
//   bit 1 set,  "compact":  up to 208 bytes of slot 0, up to 208 bytes of slot 1 (each at the start of
//                           its block, the rest zero), then one byte s: with bit 3 set the size is
//                           8192 - s - 1 (truncated), with bit 4 set 8192 + s + 1; else exactly 8192;
//   bit 0: write correct SHA-256 checksums into both slots first, so that the fuzzer gets past them
//          to the value and slot-agreement checks.
// Checks: only the documented errors; a selected slot is a valid one of a full-size file: a lone
// valid slot only of format version 2, else the same slot twice or the newer of two valid slots
// that agree on key and maximum and never go backwards; decoded slots re-encode to the same fields.
#include <openssl/sha.h>

#include <cstring>
#include <memory>

#include "state/file_format.h"
#include "test/fuzz/fuzz_util.h"

namespace sf = klms::state::format;
using klms::Error;

namespace {

// Bytes decode_slot ignores: the reserved field (bytes 108..111 hold T only with the THRESHOLD
// flag), and in version 1 the (then reserved) flags.
bool reserved_offset(std::size_t i, const sf::Slot& s) {
  return (s.version == sf::kLegacyFormatVersion && i >= 12 && i < 16) ||
         (i >= 108 && i < 112 && (s.flags & sf::kFlagThreshold) == 0);
}

std::size_t checksummed_bytes(const std::uint8_t* slot) {
  std::uint32_t version = 0;
  std::memcpy(&version, slot + 8, 4);  // little-endian host (x86-64, aarch64)
  return version == sf::kLegacyFormatVersion ? sf::kLegacyChecksummedBytes : sf::kChecksummedBytes;
}

sf::SlotStatus decode_block(const sf::FileImage& image, unsigned b, sf::Slot& out) {
  return sf::decode_slot(std::span<const std::uint8_t, sf::kBlockBytes>(image.data() + b * sf::kBlockBytes, sf::kBlockBytes),
                         out);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  klms::fuzz::Input in(data, size);
  const std::uint8_t flags = in.u8();
  // Heap-allocated so that ASan catches a read past the image.
  auto image = std::make_unique<sf::FileImage>();
  image->fill(0);
  std::uint64_t file_size = 0;
  if (flags & 2) {
    for (unsigned b = 0; b < sf::kSlotCount; ++b) {
      const auto slot = in.take(sf::kSlotBytes);
      if (!slot.empty()) std::memcpy(image->data() + b * sf::kBlockBytes, slot.data(), slot.size());
    }
    const std::uint8_t s = in.u8();
    file_size = sf::kFileBytes;
    if (flags & 8) {
      file_size -= std::uint64_t{s} + 1;
    } else if (flags & 16) {
      file_size += std::uint64_t{s} + 1;
    }
  } else {
    const auto raw = in.rest();
    const std::size_t n = raw.size() < sf::kFileBytes ? raw.size() : sf::kFileBytes;
    if (n != 0) std::memcpy(image->data(), raw.data(), n);
    file_size = raw.size();
  }
  if (flags & 1) {
    for (unsigned b = 0; b < sf::kSlotCount; ++b) {
      std::uint8_t* p = image->data() + b * sf::kBlockBytes;
      const std::size_t n = checksummed_bytes(p);
      SHA256(p, n, p + n);
    }
  }

  sf::Slot slots[sf::kSlotCount];
  sf::SlotStatus status[sf::kSlotCount];
  for (unsigned b = 0; b < sf::kSlotCount; ++b) {
    status[b] = decode_block(*image, b, slots[b]);
    if (status[b] != sf::SlotStatus::kValid) continue;
    const sf::Slot& s = slots[b];
    FUZZ_CHECK(s.max_signatures != 0 && s.next <= s.max_signatures);
    // Re-encoding gives the same bytes, apart from the reserved fields (which decode_slot ignores).
    sf::Block block;
    sf::encode_slot(s, block);
    const std::uint8_t* p = image->data() + b * sf::kBlockBytes;
    const std::size_t n = checksummed_bytes(p);
    for (std::size_t i = 0; i < n; ++i) {
      if (!reserved_offset(i, s)) FUZZ_CHECK(block[i] == p[i]);
    }
    sf::Slot again;
    FUZZ_CHECK(sf::decode_slot(block, again) == sf::SlotStatus::kValid && again == s);
  }

  auto current = sf::select_current(*image, file_size);
  if (!current) {
    const Error e = current.error();
    FUZZ_CHECK(e == Error::kStateTruncated || e == Error::kStateNotAStateFile || e == Error::kStateCorrupt ||
               e == Error::kStateUnsupportedVersion || e == Error::kStateDamaged);
    return 0;
  }
  FUZZ_CHECK(file_size == sf::kFileBytes);
  const unsigned b = current->block;
  FUZZ_CHECK(b < sf::kSlotCount);
  FUZZ_CHECK(status[b] == sf::SlotStatus::kValid && slots[b] == current->slot);
  const unsigned other = b ^ 1u;
  FUZZ_CHECK(status[other] != sf::SlotStatus::kUnsupportedVersion && status[other] != sf::SlotStatus::kBadValues);
  if (status[other] == sf::SlotStatus::kValid) {
    const sf::Slot& o = slots[other];
    FUZZ_CHECK(o.key_id == current->slot.key_id && o.max_signatures == current->slot.max_signatures);
    FUZZ_CHECK(current->slot == o || (current->slot.generation > o.generation && current->slot.next >= o.next));
    FUZZ_CHECK(current->both_blocks == (current->slot == o));
  } else {
    FUZZ_CHECK(current->slot.version == sf::kFormatVersion);  // a lone version-1 slot is refused
    FUZZ_CHECK(!current->both_blocks);
  }
  FUZZ_CHECK(sf::first_block_to_write(*current) == (current->both_blocks ? 1u : other));
  const klms::state::StateInfo info = sf::make_info(current->slot, 1, 2, nullptr);
  FUZZ_CHECK(info.next == current->slot.next && info.max_signatures == current->slot.max_signatures);
  return 0;
}
