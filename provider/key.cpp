#include "provider/key.h"

#include <algorithm>
#include <cstring>

#include "lms/signer.h"
#include "xmss/wire_format.h"

namespace klms::provider {

std::size_t KeyMaterial::max_signature_bytes() const noexcept {
  if (xmss != nullptr) return xmss->signature_bytes();
  if (private_key) return lms::hss_signature_bytes(private_key->levels);
  if (levels == 1) return lms::hss_signature_bytes(std::vector<lms::LevelParams>{top});
  // Lower levels are not in the public key: bound them by the largest set of the top's hash and n.
  std::size_t lower = 0;
  for (const lms::LmsParams& l : lms::all_lms()) {
    for (const lms::OtsParams& o : lms::all_ots()) {
      if (!lms::compatible(l, o)) continue;
      const lms::LevelParams p{&l, &o};
      lower = std::max(lower, p.signature_bytes() + p.public_key_bytes());
    }
  }
  return 4 + top.signature_bytes() + (levels - 1) * lower;
}

std::shared_ptr<const KeyMaterial> make_public_material(klms::ByteView public_key, klms::Error& error) {
  auto parsed = lms::parse_hss_public_key(public_key);
  if (!parsed) {
    error = parsed.error();
    return nullptr;
  }
  auto m = std::make_shared<KeyMaterial>();
  m->public_key.assign(public_key.begin(), public_key.end());
  m->levels = parsed->levels;
  m->top = parsed->top.params;
  m->key_id = lms::key_id_of(public_key);
  error = klms::Error::kOk;
  return m;
}

std::shared_ptr<const KeyMaterial> make_private_material(lms::HssPrivateKey private_key, klms::ByteView public_key,
                                                         klms::Error& error) {
  auto pub = make_public_material(public_key, error);
  if (!pub) return nullptr;
  if (pub->levels != private_key.levels.size() || pub->top.lms != private_key.levels.front().lms ||
      pub->top.ots != private_key.levels.front().ots ||
      std::memcmp(public_key.data() + 12, private_key.identifier.data(), lms::kIdentifierBytes) != 0) {
    error = klms::Error::kMalformedPrivateKey;
    return nullptr;
  }
  auto m = std::make_shared<KeyMaterial>();
  m->public_key = pub->public_key;
  m->levels = pub->levels;
  m->top = pub->top;
  m->key_id = pub->key_id;
  m->params_digest = lms::levels_digest_of(private_key.levels);
  m->private_key = std::move(private_key);
  return m;
}

std::uint64_t KeyMaterial::max_signatures() const noexcept {
  if (xmss != nullptr) return xmss->leaves();
  return private_key ? lms::max_signatures(private_key->levels) : 0;
}

int KeyMaterial::security_bits() const noexcept {
  return 8 * static_cast<int>(xmss != nullptr ? xmss->n : top.lms->m);
}

std::shared_ptr<const KeyMaterial> make_xmss_public_material(KeyScheme scheme, klms::ByteView public_key,
                                                             klms::Error& error) {
  const xmss::Scheme engine = scheme == KeyScheme::kXmssMt ? xmss::Scheme::kXmssMt : xmss::Scheme::kXmss;
  auto parsed = xmss::parse_public_key(engine, public_key);
  if (!parsed) {
    error = parsed.error();
    return nullptr;
  }
  auto m = std::make_shared<KeyMaterial>();
  m->scheme = scheme;
  m->public_key.assign(public_key.begin(), public_key.end());
  m->xmss = parsed->params;
  m->key_id = stateful::key_id_of(public_key);
  error = klms::Error::kOk;
  return m;
}

std::shared_ptr<const KeyMaterial> make_xmss_private_material(xmss::XmssPrivateKey private_key,
                                                              klms::ByteView public_key, klms::Error& error) {
  const KeyScheme scheme = private_key.params->scheme == xmss::Scheme::kXmss ? KeyScheme::kXmss : KeyScheme::kXmssMt;
  auto pub = make_xmss_public_material(scheme, public_key, error);
  if (!pub) return nullptr;
  if (xmss::check_halves(private_key, public_key) != klms::Error::kOk) {
    error = klms::Error::kMalformedPrivateKey;
    return nullptr;
  }
  auto m = std::make_shared<KeyMaterial>();
  m->scheme = scheme;
  m->public_key = pub->public_key;
  m->xmss = pub->xmss;
  m->key_id = pub->key_id;
  m->params_digest = xmss::params_digest_of(*private_key.params);
  m->xmss_private_key = std::move(private_key);
  return m;
}

std::shared_ptr<const KeyMaterial> make_public_material(KeyScheme scheme, klms::ByteView public_key,
                                                        klms::Error& error) {
  return scheme == KeyScheme::kHss ? make_public_material(public_key, error)
                                   : make_xmss_public_material(scheme, public_key, error);
}

}  // namespace klms::provider
