#include "tools/raw_schemes.h"

#include "klms/klms.h"
#include "lms/wire_format.h"
#include "tools/signature_index.h"

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

constexpr RawScheme kSchemes[] = {
    {"hss", KLMS_ALG_HSS_LMS_OID, "HSS/LMS and K-LMS (RFC 8554, RFC 9708)", &hss_check_public_key,
     &hss_describe_signature},
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
