#include "tools/signature_index.h"

#include "base/endian.h"
#include "lms/params.h"

namespace klms::tools {
namespace {

struct Reader {
  std::span<const std::uint8_t> in;
  std::size_t at = 0;
  bool u32(std::uint32_t& out) noexcept {
    if (in.size() - at < 4) return false;
    out = endian::load_be32(in.data() + at);
    at += 4;
    return true;
  }
  bool skip(std::size_t n) noexcept {
    if (in.size() - at < n) return false;
    at += n;
    return true;
  }
};

// One LMS signature (§5.4): its leaf and its tree height.
bool lms_signature(Reader& r, std::uint32_t& q, unsigned& h) noexcept {
  std::uint32_t ots_type = 0, lms_type = 0;
  if (!r.u32(q) || !r.u32(ots_type)) return false;
  const lms::OtsParams* ots = lms::find_ots(ots_type);
  if (ots == nullptr || !r.skip(ots->signature_bytes() - 4) || !r.u32(lms_type)) return false;
  const lms::LmsParams* params = lms::find_lms(lms_type);
  if (params == nullptr || q >= (std::uint64_t{1} << params->h)) return false;
  h = params->h;
  return r.skip(std::size_t{params->h} * params->m);
}

// One signed public key (§5.3): type codes, I, T[1].
bool lms_public_key(Reader& r) noexcept {
  std::uint32_t lms_type = 0, ots_type = 0;
  if (!r.u32(lms_type) || !r.u32(ots_type)) return false;
  const lms::LmsParams* params = lms::find_lms(lms_type);
  return params != nullptr && lms::find_ots(ots_type) != nullptr && r.skip(16 + std::size_t{params->m});
}

}  // namespace

Result<std::uint64_t> hss_signature_index(std::span<const std::uint8_t> sig) noexcept {
  Reader r{sig};
  std::uint32_t nspk = 0;
  if (!r.u32(nspk) || nspk > 7) return Error::kMalformedSignature;
  unsigned __int128 index = 0;
  unsigned total_height = 0;
  for (std::uint32_t level = 0; level <= nspk; ++level) {
    std::uint32_t q = 0;
    unsigned h = 0;
    if (!lms_signature(r, q, h)) return Error::kMalformedSignature;
    if (level < nspk && !lms_public_key(r)) return Error::kMalformedSignature;
    index = (index << h) | q;
    total_height += h;
  }
  if (r.at != sig.size() || total_height > 64) return Error::kMalformedSignature;
  return static_cast<std::uint64_t>(index);
}

}  // namespace klms::tools
