#include "tools/raw_schemes.h"

#include "klms/klms.h"
#include "lms/wire_format.h"
#include "tools/signature_index.h"
#include "xmss/params.h"
#include "xmss/wire_format.h"

namespace klms::tools {
namespace {

std::string level_name(const lms::LevelParams& p) {
  return std::string(p.lms->name) + " / " + std::string(p.ots->name);
}

Error hss_check_public_key(ByteView raw, std::string& summary) noexcept {
  auto key = lms::parse_hss_public_key(raw);
  if (!key) return key.error();
  try {
    summary = "HSS public key: " + std::to_string(key->levels) + " level" + (key->levels == 1 ? "" : "s") +
              ", top level " + level_name(key->top.params);
  } catch (...) {
    return Error::kOutOfMemory;
  }
  return Error::kOk;
}

Result<std::string> hss_describe_signature(ByteView sig) {
  auto position = hss_signature_position(sig);
  if (!position) return position.error();
  std::string out = "levels: " + std::to_string(position->count) + "\n";
  for (std::uint32_t i = 0; i < position->count; ++i) {
    const LevelPosition& level = position->levels[i];
    out += "level " + std::to_string(i) + ": q = " + std::to_string(level.q) + " (" + level_name(level.params) + ")\n";
  }
  return out + "index: " + std::to_string(position->index) + "\n";
}

// XMSS and XMSS^MT (RFC 8391 Appendix B, C; RFC 9802's OIDs): the public key names its set; a
// signature does not (its length and scheme narrow it down; the index is its first bytes).
Error xmss_check_public_key(xmss::Scheme scheme, ByteView raw, std::string& summary) noexcept {
  auto key = xmss::parse_public_key(scheme, raw);
  if (!key) return key.error();
  try {
    summary = std::string(scheme == xmss::Scheme::kXmss ? "XMSS" : "XMSS^MT") + " public key: " +
              std::string(key->params->name);
  } catch (...) {
    return Error::kOutOfMemory;
  }
  return Error::kOk;
}

Error xmss_public_key(ByteView raw, std::string& summary) noexcept {
  return xmss_check_public_key(xmss::Scheme::kXmss, raw, summary);
}
Error xmssmt_public_key(ByteView raw, std::string& summary) noexcept {
  return xmss_check_public_key(xmss::Scheme::kXmssMt, raw, summary);
}

Result<std::string> xmss_describe(xmss::Scheme scheme, ByteView sig) {
  std::string sets;
  std::uint64_t index = 0;
  bool found = false;
  for (const xmss::Params& p : xmss::all_params()) {
    if (p.scheme != scheme || p.signature_bytes() != sig.size()) continue;
    auto parsed = xmss::parse_signature(p, sig);
    if (!parsed) continue;
    index = parsed->idx;  // the same bytes for every set of this length and scheme
    found = true;
    sets += sets.empty() ? "" : ", ";
    sets += p.name;
  }
  if (!found) return Error::kMalformedSignature;
  return "sets of this length: " + sets + "\nindex: " + std::to_string(index) + "\n";
}

Result<std::string> xmss_describe_signature(ByteView sig) { return xmss_describe(xmss::Scheme::kXmss, sig); }
Result<std::string> xmssmt_describe_signature(ByteView sig) { return xmss_describe(xmss::Scheme::kXmssMt, sig); }

constexpr RawScheme kSchemes[] = {
    {"hss", KLMS_ALG_HSS_LMS_OID, "HSS/LMS and K-LMS (RFC 8554, RFC 9708)", &hss_check_public_key,
     &hss_describe_signature},
    {"xmss", KLMS_ALG_XMSS_OID, "XMSS and K-XMSS (RFC 8391, RFC 9802)", &xmss_public_key, &xmss_describe_signature},
    {"xmssmt", KLMS_ALG_XMSSMT_OID, "XMSS^MT (RFC 8391, RFC 9802)", &xmssmt_public_key, &xmssmt_describe_signature},
};

}  // namespace

std::span<const RawScheme> raw_schemes() noexcept { return kSchemes; }

const RawScheme* find_raw_scheme(std::string_view name) noexcept {
  for (const RawScheme& s : kSchemes) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

}  // namespace klms::tools
