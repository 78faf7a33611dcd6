#include "tools/signature_index.h"

#include "base/bytes.h"
#include "lms/wire_format.h"

namespace klms::tools {

// No public key to check against: Nspk says how many levels follow, and the strict LMS parsers of
// lms/wire_format.h read each one.
Result<SignaturePosition> hss_signature_position(std::span<const std::uint8_t> sig) noexcept {
  Reader r(sig);
  std::uint32_t nspk = 0;
  if (!r.take_u32(nspk) || nspk >= lms::kMaxLevels) return Error::kMalformedSignature;
  ByteView rest = r.rest();
  SignaturePosition out;
  unsigned __int128 index = 0;
  unsigned total_height = 0;
  for (std::uint32_t level = 0; level <= nspk; ++level) {
    std::size_t used = 0;
    auto lms_sig = lms::parse_lms_signature_prefix(rest, used);
    if (!lms_sig) return Error::kMalformedSignature;
    rest = rest.subspan(used);
    if (level < nspk) {
      if (!lms::parse_lms_public_key_prefix(rest, used)) return Error::kMalformedSignature;
      rest = rest.subspan(used);
    }
    out.levels[level] = LevelPosition{lms_sig->params, lms_sig->q};
    index = (index << lms_sig->params.lms->h) | lms_sig->q;
    total_height += lms_sig->params.lms->h;
  }
  if (!rest.empty() || total_height > 64) return Error::kMalformedSignature;
  out.count = nspk + 1;
  out.index = static_cast<std::uint64_t>(index);
  return out;
}

Result<std::uint64_t> hss_signature_index(std::span<const std::uint8_t> sig) noexcept {
  auto position = hss_signature_position(sig);
  if (!position) return position.error();
  return position->index;
}

}  // namespace klms::tools
