#include "provider/algorithms.h"

#include <deque>
#include <string>
#include <vector>

#include "hashes/family_table.h"
#include "provider/names.h"

namespace klms::provider {
namespace {

// DER of the OIDs and AlgorithmIdentifiers (parameters absent: RFC 9708, RFC 9802).
constexpr std::uint8_t kXmssOidDer[] = {0x06, 0x08, 0x2B, 0x06, 0x01, 0x05, 0x05, 0x07, 0x06, 0x22};
constexpr std::uint8_t kXmssAlgorithmDer[] = {0x30, 0x0A, 0x06, 0x08, 0x2B, 0x06, 0x01, 0x05, 0x05, 0x07, 0x06, 0x22};
constexpr std::uint8_t kXmssMtOidDer[] = {0x06, 0x08, 0x2B, 0x06, 0x01, 0x05, 0x05, 0x07, 0x06, 0x23};
constexpr std::uint8_t kXmssMtAlgorithmDer[] = {0x30, 0x0A, 0x06, 0x08, 0x2B, 0x06, 0x01, 0x05, 0x05, 0x07, 0x06, 0x23};

const SchemeIdentity kIdentities[] = {
    {KeyScheme::kHss, "HSS/LMS", kHssOid, kHssShortName, kHssLongName, klms::ByteView(kHssOidDer),
     klms::ByteView(kHssAlgorithmIdDer), kHssAlgorithmNames, kHssKeymgmtNames},
    {KeyScheme::kXmss, "XMSS", KLMS_ALG_XMSS_OID, KLMS_ALG_XMSS_SN, KLMS_ALG_XMSS, klms::ByteView(kXmssOidDer),
     klms::ByteView(kXmssAlgorithmDer), KLMS_ALG_XMSS ":" KLMS_ALG_XMSS_SN ":" KLMS_ALG_XMSS_OID, kXmssDecoderNames},
    {KeyScheme::kXmssMt, "XMSS^MT", KLMS_ALG_XMSSMT_OID, KLMS_ALG_XMSSMT_SN, KLMS_ALG_XMSSMT,
     klms::ByteView(kXmssMtOidDer), klms::ByteView(kXmssMtAlgorithmDer),
     KLMS_ALG_XMSSMT ":" KLMS_ALG_XMSSMT_SN ":" KLMS_ALG_XMSSMT_OID, kXmssMtDecoderNames},
};

struct Table {
  std::deque<std::string> strings;  // stable storage for the views
  std::vector<KeyAlgorithm> rows;

  std::string_view keep(std::string s) {
    strings.push_back(std::move(s));
    return strings.back();
  }

  Table() {
    rows.push_back({KeyScheme::kHss, kHssKeymgmtNames, {}, {}, "HSS/LMS and K-LMS hash-based signature keys"});
    rows.push_back({KeyScheme::kXmss, kIdentities[1].decoder_names, "XMSS-SHA2_10_256", "XMSS-",
                    "XMSS and K-XMSS hash-based signature keys (RFC 8391, SP 800-208)"});
    rows.push_back({KeyScheme::kXmssMt, kIdentities[2].decoder_names, "XMSSMT-SHA2_20/2_256", "XMSSMT-",
                    "XMSS^MT hash-based signature keys (RFC 8391, SP 800-208)"});
    for (const hashes::FamilyRow& f : hashes::family_rows()) {
      if (f.k_code == 0 || rows.size() == kMaxKeyAlgorithms) continue;
      const std::string prefix = std::string(KLMS_ALG_KXMSS_PREFIX) + std::string(f.xmss_token);
      rows.push_back({KeyScheme::kXmss, keep(prefix), keep(prefix + "_10_256"), keep(prefix + "_"),
                      keep("K-XMSS over " + std::string(f.self_test_digest) + " (XMSS keys with a private-use type code)")});
    }
  }
};

}  // namespace

const SchemeIdentity& scheme_identity(KeyScheme scheme) noexcept {
  return kIdentities[static_cast<std::size_t>(scheme)];
}

std::span<const KeyAlgorithm> key_algorithms() {
  static const Table table;
  return table.rows;
}

}  // namespace klms::provider
