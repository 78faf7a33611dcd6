#include "provider/keymgmt.h"

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "lms/hss_scheme.h"
#include "lms/keygen.h"
#include "lms/tree_cache.h"
#include "provider/c_boundary.h"
#include "provider/errors.h"
#include "provider/self_test.h"
#include "provider/key.h"
#include "provider/keymgmt_params.h"
#include "provider/names.h"
#include "stateful/keygen.h"
#include "stateful/progress.h"
#include "stateful/state_location.h"
#include "xmss/params.h"
#include "xmss/xmss_scheme.h"

namespace klms::provider {
namespace {

constexpr int kSelectPrivate = OSSL_KEYMGMT_SELECT_PRIVATE_KEY;
constexpr int kSelectPublic = OSSL_KEYMGMT_SELECT_PUBLIC_KEY;

ProviderKey* as_key(void* p) noexcept { return static_cast<ProviderKey*>(p); }

const KeyAlgorithm& algorithm_of(const ProviderKey* key) { return key_algorithms()[key->algorithm]; }

// The scheme's name for messages: "HSS/LMS", "XMSS", "XMSS^MT".
const char* scheme_name(const ProviderKey* key) noexcept {
  return key->material ? key->material->identity().name : "HSS/LMS, XMSS or XMSS^MT";
}

template <std::uint8_t Algorithm>
void* key_new(void* provctx) noexcept {
  auto* key = new (std::nothrow) ProviderKey;
  if (key != nullptr) {
    key->provider = static_cast<ProviderContext*>(provctx);
    key->algorithm = Algorithm;
  }
  return key;
}

void key_free(void* keydata) noexcept { delete as_key(keydata); }

void* key_dup(const void* keydata, int /*selection*/) noexcept {
  const auto* src = static_cast<const ProviderKey*>(keydata);
  auto* dst = new (std::nothrow) ProviderKey;
  if (dst == nullptr) return nullptr;
  dst->provider = src->provider;
  dst->algorithm = src->algorithm;
  dst->material = src->material;  // shared: the signer and state handle stay one (docs/state.md §9)
  return dst;
}

int key_has(const void* keydata, int selection) noexcept {
  const auto* key = static_cast<const ProviderKey*>(keydata);
  if (key == nullptr) return 0;
  if ((selection & OSSL_KEYMGMT_SELECT_KEYPAIR) == 0) return 1;
  if (!key->material) return 0;
  if ((selection & kSelectPrivate) != 0 && !key->material->has_private()) return 0;
  return 1;
}

int key_match(const void* a, const void* b, int selection) noexcept {
  const auto* x = static_cast<const ProviderKey*>(a);
  const auto* y = static_cast<const ProviderKey*>(b);
  if (!x->material || !y->material) return 0;
  if ((selection & OSSL_KEYMGMT_SELECT_KEYPAIR) == 0) return 1;
  return x->material->public_key == y->material->public_key ? 1 : 0;
}

// u32(1) || bytes when bytes have the length of a bare LMS public key of the type they start with
// (RFC 8554: u32 type || u32 otstype || I[16] || T[1][m]); empty otherwise.
klms::Bytes hss_from_lms_public_key(const unsigned char* data, size_t len) {
  if (data == nullptr || len < 8 + 16) return {};
  const std::uint32_t type = (std::uint32_t{data[0]} << 24) | (std::uint32_t{data[1]} << 16) |
                             (std::uint32_t{data[2]} << 8) | std::uint32_t{data[3]};
  const size_t m = len - 24;
  // Only a plausible output size; make_public_material checks the type code and the length.
  if (type < 5 || (m != 24 && m != 32)) return {};
  klms::Bytes out(4 + len);
  out[3] = 1;
  std::memcpy(out.data() + 4, data, len);
  return out;
}

// Only the public key travels through import/export (docs/state.md §9): private material never leaves
// or enters as parameters, so no copy of a key can exist without its state file reference.
int import_public_key(ProviderKey* key, int selection, const OSSL_PARAM params[]) {
  const KeyScheme scheme = algorithm_of(key).scheme;
  const char* name = scheme_identity(scheme).name;
  if ((selection & kSelectPrivate) != 0) {
    KLMS_RAISE(key->provider, kReasonInvalidArgument,
               "%s private keys cannot be imported from parameters; decode the PKCS#8 key file instead", name);
    return 0;
  }
  if ((selection & kSelectPublic) == 0) return 1;
  const OSSL_PARAM* p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_PUB_KEY);
  if (p == nullptr) p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY);
  const void* data = nullptr;
  size_t len = 0;
  if (p == nullptr || !OSSL_PARAM_get_octet_string_ptr(p, &data, &len)) {
    KLMS_RAISE(key->provider, kReasonInvalidArgument, "import needs the public key as octet string 'pub'");
    return 0;
  }
  klms::Error error = klms::Error::kOk;
  auto material = make_public_material(scheme, klms::ByteView(static_cast<const unsigned char*>(data), len), error);
  if (!material && scheme == KeyScheme::kHss) {
    // OpenSSL 3.6+'s own LMS key manager exports the bare LMS public key (RFC 8554 section 5.3,
    // no u32 L): take it as the HSS key with L = 1, so that a key its decoder read can still be
    // verified here (docs/openssl-versions.md "Next to OpenSSL's own LMS").
    klms::Error lms_error = klms::Error::kOk;
    auto as_hss = hss_from_lms_public_key(static_cast<const unsigned char*>(data), len);
    if (!as_hss.empty()) material = make_public_material(klms::ByteView(as_hss.data(), as_hss.size()), lms_error);
  }
  if (!material) {
    KLMS_RAISE_LMS(key->provider, error, (std::string("importing an ") + name + " public key").c_str());
    return 0;
  }
  key->material = std::move(material);
  return 1;
}

int key_import(void* keydata, int selection, const OSSL_PARAM params[]) noexcept {
  ProviderKey* key = as_key(keydata);
  return guarded(key->provider, "importing a key", 0,
                 [&] { return import_public_key(key, selection, params); });
}

const OSSL_PARAM* key_import_types(int selection) noexcept {
  static const OSSL_PARAM pub[] = {OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PUB_KEY, nullptr, 0), OSSL_PARAM_END};
  static const OSSL_PARAM none[] = {OSSL_PARAM_END};
  return (selection & kSelectPublic) != 0 ? pub : none;
}

int key_export(void* keydata, int selection, OSSL_CALLBACK* cb, void* cbarg) noexcept {
  ProviderKey* key = as_key(keydata);
  if (!key->material) return 0;
  if ((selection & kSelectPrivate) != 0) {
    KLMS_RAISE(key->provider, kReasonInvalidArgument, "%s private keys are never exported as parameters",
               scheme_name(key));
    return 0;
  }
  if ((selection & kSelectPublic) == 0) return 1;
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, const_cast<unsigned char*>(key->material->public_key.data()),
                                        key->material->public_key.size()),
      OSSL_PARAM_END};
  return cb(params, cbarg);
}

const OSSL_PARAM* key_export_types(int selection) noexcept { return key_import_types(selection); }

std::string level_names(const KeyMaterial& m, bool ots) {
  std::string out;
  if (m.private_key) {
    for (const lms::LevelParams& l : m.private_key->levels) {
      if (!out.empty()) out += ",";
      out += ots ? l.ots->name : l.lms->name;
    }
  } else {
    out = ots ? m.top.ots->name : m.top.lms->name;  // lower levels are not in a public key
  }
  return out;
}

int get_key_params(ProviderKey* key, OSSL_PARAM params[]) {
  if (!key->material) return 1;
  const KeyMaterial& m = *key->material;
  const int bits = m.security_bits();
  OSSL_PARAM* p;
  if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_BITS)) != nullptr && !OSSL_PARAM_set_int(p, bits)) return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_SECURITY_BITS)) != nullptr && !OSSL_PARAM_set_int(p, bits)) {
    return 0;
  }
  if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_MAX_SIZE)) != nullptr &&
      !OSSL_PARAM_set_int(p, static_cast<int>(m.max_signature_bytes()))) {
    return 0;
  }
  if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_MANDATORY_DIGEST)) != nullptr &&
      !OSSL_PARAM_set_utf8_string(p, "UNDEF")) {
    return 0;
  }
  for (const char* name : {OSSL_PKEY_PARAM_PUB_KEY, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY}) {
    if ((p = OSSL_PARAM_locate(params, name)) != nullptr &&
        !OSSL_PARAM_set_octet_string(p, m.public_key.data(), m.public_key.size())) {
      return 0;
    }
  }
  if (m.scheme == KeyScheme::kHss) {
    if ((p = OSSL_PARAM_locate(params, kParamLms)) != nullptr &&
        !OSSL_PARAM_set_utf8_string(p, level_names(m, false).c_str())) {
      return 0;
    }
    if ((p = OSSL_PARAM_locate(params, kParamOts)) != nullptr &&
        !OSSL_PARAM_set_utf8_string(p, level_names(m, true).c_str())) {
      return 0;
    }
    if ((p = OSSL_PARAM_locate(params, kParamLevels)) != nullptr && !OSSL_PARAM_set_int(p, static_cast<int>(m.levels))) {
      return 0;
    }
  } else {
    if ((p = OSSL_PARAM_locate(params, kParamParams)) != nullptr &&
        !OSSL_PARAM_set_utf8_string(p, std::string(m.xmss->name).c_str())) {
      return 0;
    }
    if ((p = OSSL_PARAM_locate(params, kParamLevels)) != nullptr && !OSSL_PARAM_set_int(p, m.xmss->d)) return 0;
  }
  if (const stateful::PrivateKey* priv = m.stateful_private()) {
    if ((p = OSSL_PARAM_locate(params, kParamMaxSignatures)) != nullptr &&
        !OSSL_PARAM_set_uint64(p, m.max_signatures())) {
      return 0;
    }
    if ((p = OSSL_PARAM_locate(params, kParamStateFile)) != nullptr &&
        !OSSL_PARAM_set_utf8_string(p, priv->state_file.c_str())) {
      return 0;
    }
    if ((p = OSSL_PARAM_locate(params, kParamSeeded)) != nullptr && !OSSL_PARAM_set_int(p, priv->seeded)) {
      return 0;
    }
    if ((p = OSSL_PARAM_locate(params, kParamRemaining)) != nullptr) {
      const stateful::StateSummary s = stateful::summarize_state(m.signing_key(), state_options(*key->provider));
      if (s.error != klms::Error::kOk) {
        KLMS_RAISE_STATE(key->provider, s.error, "reading state file " + priv->state_file, priv->state_file);
        return 0;
      }
      if (!OSSL_PARAM_set_uint64(p, s.remaining)) return 0;
    }
  }
  return 1;
}

int key_get_params(void* keydata, OSSL_PARAM params[]) noexcept {
  ProviderKey* key = as_key(keydata);
  return guarded(key->provider, "key parameters", 0, [&] { return get_key_params(key, params); });
}

const OSSL_PARAM* key_gettable_params(void* /*provctx*/) noexcept {
  static const OSSL_PARAM table[] = {
      OSSL_PARAM_int(OSSL_PKEY_PARAM_BITS, nullptr),
      OSSL_PARAM_int(OSSL_PKEY_PARAM_SECURITY_BITS, nullptr),
      OSSL_PARAM_int(OSSL_PKEY_PARAM_MAX_SIZE, nullptr),
      OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_MANDATORY_DIGEST, nullptr, 0),
      OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PUB_KEY, nullptr, 0),
      OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, nullptr, 0),
      OSSL_PARAM_utf8_string(kParamLms, nullptr, 0),
      OSSL_PARAM_utf8_string(kParamOts, nullptr, 0),
      OSSL_PARAM_int(kParamLevels, nullptr),
      OSSL_PARAM_utf8_string(kParamParams, nullptr, 0),
      OSSL_PARAM_uint64(kParamMaxSignatures, nullptr),
      OSSL_PARAM_uint64(kParamRemaining, nullptr),
      OSSL_PARAM_utf8_string(kParamStateFile, nullptr, 0),
      OSSL_PARAM_int(kParamSeeded, nullptr),
      OSSL_PARAM_END};
  return table;
}

// `openssl pkey -check` / `-pubcheck`: structure always. For a private key, without building a
// tree: its state file, when present, must be this public key's; its tree cache, when present and
// authentic (MAC keyed from SEED), must have this public key's root.
int validate_key(const ProviderKey* key, int selection) {
  if (!key->material) return 0;
  const KeyMaterial& m = *key->material;
  if ((selection & kSelectPrivate) == 0) return 1;
  if (!m.has_private()) return 0;
  const std::string& path = m.state_file();
  const stateful::StateSummary state = stateful::summarize_state(m.signing_key(), state_options(*key->provider));
  if (state.error == klms::Error::kStateForeign) {
    KLMS_RAISE(key->provider, kReasonMalformedKey,
               "the public key does not match the key's state file %s (altered key, or another key's state)",
               path.c_str());
    return 0;
  }
  if (state.error == klms::Error::kStateParamsMismatch) {
    KLMS_RAISE_LMS(key->provider, state.error, ("checking the key against state file " + path).c_str());
    return 0;
  }
  bool tree_matches = true;
  if (m.xmss_private_key) {
    tree_matches = xmss::check_top_tree_cache(*m.xmss_private_key, m.public_key) == klms::Error::kOk;
  } else {
    const lms::TreeKey top = lms::top_tree_key(*m.private_key);
    const lms::CacheAuthenticator auth(top);
    lms::CacheIdentity id;
    id.any_key_id = true;
    id.params = m.private_key->levels.front();
    id.identifier = m.private_key->identifier;
    auto cache = lms::TreeCacheFile::open(m.private_key->tree_cache_file(path, 0), id, auth);
    if (cache) {
      const std::size_t n = m.top.lms->m;
      tree_matches = std::memcmp(cache->root(), m.public_key.data() + m.public_key.size() - n, n) == 0;
    }
  }
  if (!tree_matches) {
    KLMS_RAISE(key->provider, kReasonMalformedKey, "the private key's tree does not match its public key");
    return 0;
  }
  return 1;
}

int key_validate(const void* keydata, int selection, int /*checktype*/) noexcept {
  const auto* key = static_cast<const ProviderKey*>(keydata);
  return guarded(key->provider, "checking a key", 0, [&] { return validate_key(key, selection); });
}

// The signature algorithm of a key manager's keys: K-XMSS keys are XMSS keys.
template <std::uint8_t Algorithm>
const char* key_query_operation_name(int operation_id) noexcept {
  if (operation_id != OSSL_OP_SIGNATURE) return nullptr;
  return scheme_identity(key_algorithms()[Algorithm].scheme).long_name;
}

// Decoders hand over a key by reference; the reference is an ProviderKey* they allocated.
void* key_load(const void* reference, size_t reference_size) noexcept {
  if (reference == nullptr || reference_size != kKeyReferenceBytes) return nullptr;
  ProviderKey* key = *static_cast<ProviderKey* const*>(reference);
  *const_cast<ProviderKey**>(static_cast<ProviderKey* const*>(reference)) = nullptr;  // ownership moves to the caller
  return key;
}

// ---- Key generation ----

struct GenContext {
  ProviderContext* provider = nullptr;
  std::uint8_t algorithm = 0;  // provider/algorithms.h key_algorithms()
  GenerationRequest request;
  std::optional<bool> progress_lines;  // -pkeyopt progress:0/1; unset: KLMS_PROGRESS decides
};

int gen_set_params(void* genctx, const OSSL_PARAM params[]) noexcept;

template <std::uint8_t Algorithm>
void* gen_init(void* provctx, int selection, const OSSL_PARAM params[]) noexcept {
  if (!require_self_test(static_cast<ProviderContext*>(provctx), SelfTest::kLms)) return nullptr;
  auto* ctx = new (std::nothrow) GenContext;
  if (ctx == nullptr) return nullptr;
  ctx->provider = static_cast<ProviderContext*>(provctx);
  ctx->algorithm = Algorithm;
  (void)selection;
  if (!gen_set_params(ctx, params)) {
    delete ctx;
    return nullptr;
  }
  return ctx;
}

void gen_cleanup(void* genctx) noexcept {
  // The request's seed is a SecretBytes: deleting the context wipes it.
  delete static_cast<GenContext*>(genctx);
}

bool get_utf8(const GenContext* ctx, const OSSL_PARAM* p, std::optional<std::string>& out) {
  const char* s = nullptr;
  if (!OSSL_PARAM_get_utf8_string_ptr(p, &s)) {
    KLMS_RAISE(ctx->provider, kReasonBadParameter, "%s: expected a UTF-8 string", p->key);
    return false;
  }
  out = s;
  return true;
}

// 0 or 1, as an integer (-pkeyopt progress:1 converts through the settable table) or as text.
bool get_flag(const GenContext* ctx, const OSSL_PARAM* p, std::optional<bool>& out) {
  int value = -1;
  const char* text = nullptr;
  if (p->data_type == OSSL_PARAM_UTF8_STRING && OSSL_PARAM_get_utf8_string_ptr(p, &text)) {
    value = std::strcmp(text, "1") == 0 ? 1 : std::strcmp(text, "0") == 0 ? 0 : -1;
  } else if (!OSSL_PARAM_get_int(p, &value)) {
    value = -1;
  }
  if (value != 0 && value != 1) {
    KLMS_RAISE(ctx->provider, kReasonBadParameter, "%s: expected 0 or 1", p->key);
    return false;
  }
  out = value == 1;
  return true;
}

// Replaces `out`: emplace destroys the old value first, and a SecretBytes wipes it as it goes.
template <typename Bytes>
bool get_octets(const GenContext* ctx, const OSSL_PARAM* p, std::optional<Bytes>& out) {
  const void* data = nullptr;
  size_t len = 0;
  if (!OSSL_PARAM_get_octet_string_ptr(p, &data, &len)) {
    KLMS_RAISE(ctx->provider, kReasonBadParameter, "%s: expected an octet string (use -pkeyopt hex%s:...)", p->key,
               p->key);
    return false;
  }
  const auto* bytes = static_cast<const unsigned char*>(data);
  out.emplace(bytes, bytes + len);
  return true;
}

int set_gen_params(GenContext* ctx, const OSSL_PARAM params[]) {
  if (params == nullptr) return 1;
  for (const OSSL_PARAM* p = params; p->key != nullptr; ++p) {
    const std::string key = p->key;
    GenerationRequest& r = ctx->request;
    bool ok = true;
    if (key == kParamLms) ok = get_utf8(ctx, p, r.lms);
    else if (key == kParamOts) ok = get_utf8(ctx, p, r.ots);
    else if (key == kParamHash) ok = get_utf8(ctx, p, r.hash);
    else if (key == kParamHeight) ok = get_utf8(ctx, p, r.height);
    else if (key == kParamWinternitz) ok = get_utf8(ctx, p, r.winternitz);
    else if (key == kParamParams) ok = get_utf8(ctx, p, r.params);
    else if (key == kParamStateFile) ok = get_utf8(ctx, p, r.state_file);
    else if (key == kParamWitness) ok = get_utf8(ctx, p, r.witness);
    else if (key == kParamSeed) ok = get_octets(ctx, p, r.seed);
    else if (key == kParamIdentifier) ok = get_octets(ctx, p, r.identifier);
    else if (key == kParamProgress) ok = get_flag(ctx, p, ctx->progress_lines);
    if (!ok) return 0;
  }
  return 1;
}

int gen_set_params(void* genctx, const OSSL_PARAM params[]) noexcept {
  auto* ctx = static_cast<GenContext*>(genctx);
  return guarded(ctx->provider, "key generation parameters", 0, [&] { return set_gen_params(ctx, params); });
}

const OSSL_PARAM* gen_settable_params(void* /*genctx*/, void* /*provctx*/) noexcept {
  static const OSSL_PARAM table[] = {
      OSSL_PARAM_utf8_string(kParamLms, nullptr, 0),
      OSSL_PARAM_utf8_string(kParamOts, nullptr, 0),
      OSSL_PARAM_utf8_string(kParamHash, nullptr, 0),
      OSSL_PARAM_utf8_string(kParamHeight, nullptr, 0),
      OSSL_PARAM_utf8_string(kParamWinternitz, nullptr, 0),
      OSSL_PARAM_utf8_string(kParamParams, nullptr, 0),
      OSSL_PARAM_utf8_string(kParamStateFile, nullptr, 0),
      OSSL_PARAM_utf8_string(kParamWitness, nullptr, 0),
      OSSL_PARAM_octet_string(kParamSeed, nullptr, 0),
      OSSL_PARAM_octet_string(kParamIdentifier, nullptr, 0),
      OSSL_PARAM_int(kParamProgress, nullptr),
      OSSL_PARAM_END};
  return table;
}

// Key generation's errors, each with what to do. An existing state file says whether it ever
// signed: one that never did is what a key generation killed before its key file was written
// leaves behind, and is safe to remove.
void raise_keygen_error(const ProviderContext* prov, klms::Error error, const std::string& path) {
  if (error == klms::Error::kCancelled) {
    KLMS_RAISE(prov, kReasonKeygenCancelled, "key generation cancelled by the caller (progress callback)");
    return;
  }
  if (error == klms::Error::kStateExists) {
    auto existing = state::read_state_file(path);
    if (existing && existing->never_used()) {
      KLMS_RAISE(prov, kReasonStateExists,
                 "%s was never used (next index 0): most likely left by an interrupted key generation; "
                 "if no key file uses it, remove it with `klms-state discard %s`, or choose another state-file",
                 path.c_str(), path.c_str());
    } else {
      KLMS_RAISE(prov, kReasonStateExists,
                 "%s belongs to a key that has signed (or is not a state file): never overwrite it; choose another "
                 "state-file", path.c_str());
    }
    return;
  }
  KLMS_RAISE_STATE(prov, error, "creating state file " + path, path);
}

// Key generation, step 1: the levels (from the parameter sets asked for) into the request.
bool gen_levels(const ProviderContext* prov, const GenerationRequest& r, lms::KeygenRequest& request) {
  std::string message;
  request.levels = resolve_levels(r, message);
  if (request.levels.empty()) {
    KLMS_RAISE(prov, kReasonBadParameter, "%s", message.c_str());
    return false;
  }
  return true;
}

// Step 2: SEED and I, supplied (checked for their lengths, both before either is drawn) or random.
bool gen_seed_and_identifier(const ProviderContext* prov, const GenerationRequest& r, lms::KeygenRequest& request) {
  const std::size_t m = request.levels.front().lms->m;
  if (r.seed && r.seed->size() != m) {
    KLMS_RAISE(prov, kReasonBadParameter, "seed: must be exactly %zu bytes for %s, got %zu", m,
               std::string(request.levels.front().lms->name).c_str(), r.seed->size());
    return false;
  }
  if (r.identifier && r.identifier->size() != lms::kIdentifierBytes) {
    KLMS_RAISE(prov, kReasonBadParameter, "identifier: must be exactly 16 bytes, got %zu", r.identifier->size());
    return false;
  }
  if (r.seed) {
    std::memcpy(request.seed.data(), r.seed->data(), m);
  } else if (RAND_priv_bytes_ex(prov->libctx, request.seed.data(), m, 0) != 1) {
    KLMS_RAISE(prov, kReasonInternal, "the random generator failed to give a seed");
    return false;
  }
  if (r.identifier) {
    std::memcpy(request.identifier.data(), r.identifier->data(), lms::kIdentifierBytes);
  } else if (RAND_bytes_ex(prov->libctx, request.identifier.data(), lms::kIdentifierBytes, 0) != 1) {
    KLMS_RAISE(prov, kReasonInternal, "the random generator failed to give an identifier");
    return false;
  }
  request.seeded = r.seed.has_value() || r.identifier.has_value();
  return true;
}

// Step 3: the state file: the one named (made absolute), or <I in hex>.state in the default
// directory (stateful/state_location.h), and its witness.
bool gen_state_file(const ProviderContext* prov, const GenerationRequest& r, klms::ByteView identifier,
                    std::string& state_file_out, state::StateOptions& options_out) {
  if (r.state_file) {
    if (!stateful::names_a_file(*r.state_file)) {
      KLMS_RAISE(prov, kReasonStatePathInvalid, "state-file: '%s' does not name a file", r.state_file->c_str());
      return false;
    }
    auto state_file = stateful::requested_state_file(*r.state_file);
    if (!state_file) {
      KLMS_RAISE_LMS(prov, state_file.error(), "state-file");
      return false;
    }
    state_file_out = std::move(*state_file);
  } else {
    const std::string dir = default_state_directory(*prov);
    if (dir.empty()) {
      KLMS_RAISE(prov, kReasonNoStateFile,
                 "no state directory: set -pkeyopt state-file:PATH, KLMS_STATE_DIR, or state_dir in the provider's configuration");
      return false;
    }
    state_file_out = stateful::state_file_in(dir, identifier);
  }
  std::optional<state::WitnessKind> witness;
  if (r.witness) {
    witness = stateful::witness_named(*r.witness);
    if (!witness) {
      KLMS_RAISE(prov, kReasonBadParameter, "witness: '%s' is not one of tpm, etcd, none", r.witness->c_str());
      return false;
    }
  }
  options_out = stateful::key_state_options(prov->config, witness);
  return true;
}

// Step 4: genpkey's progress callback. It prints one character per call: '.' while the tree grows
// (every 1/64 of it), and a newline at the end — only if it printed dots, so quick keys print nothing.
// The build's start (done = 0) is not passed on: the dots are what they always were.
stateful::ProgressCallback gen_progress(OSSL_CALLBACK* cb, void* cbarg) {
  return [cb, cbarg, reported = false](std::uint64_t done, std::uint64_t total) mutable {
    if (done == 0) return true;
    const bool finished = done >= total;
    if (finished && !reported) return true;
    reported = true;
    int potential = finished ? 3 : 0;
    int iteration = static_cast<int>(total == 0 ? 0 : done * 100 / total);
    OSSL_PARAM params[] = {OSSL_PARAM_construct_int(OSSL_GEN_PARAM_POTENTIAL, &potential),
                           OSSL_PARAM_construct_int(OSSL_GEN_PARAM_ITERATION, &iteration), OSSL_PARAM_END};
    return cb(params, cbarg) != 0;
  };
}

// Step 5: the key object, holding the signer that generation made (its top tree is in memory).
ProviderKey* gen_key_object(ProviderContext* prov, lms::GeneratedKey& generated) {
  klms::Error error = klms::Error::kOk;
  auto material = make_private_material(generated.private_key, generated.public_key, error);
  if (!material) {
    KLMS_RAISE_LMS(prov, error, "key generation");
    return nullptr;
  }
  material->kept.keep_own_signer(generated.signer);
  auto* key = new ProviderKey;  // NOLINT(bugprone-unhandled-exception-at-new): called inside guarded(), which catches it
  key->provider = prov;
  key->material = std::move(material);
  return key;
}

// The XMSS set a key generation asks for (-pkeyopt params:NAME, else the key manager's default),
// or null after raising what is wrong with the name.
const xmss::Params* gen_xmss_params(const ProviderContext* prov, const KeyAlgorithm& alg, const GenerationRequest& r) {
  for (const auto* lms_form : {&r.lms, &r.ots, &r.hash, &r.height, &r.winternitz}) {
    if (lms_form->has_value()) {
      KLMS_RAISE(prov, kReasonBadParameter,
                 "lms, ots, hash, height and winternitz are HSS-LMS parameters: %s keys take params:NAME "
                 "(e.g. params:%s; docs/xmss.md lists the sets)",
                 scheme_identity(alg.scheme).name, std::string(alg.default_params).c_str());
      return nullptr;
    }
  }
  const std::string name = r.params.value_or(std::string(alg.default_params));
  if (const xmss::RefusedSet* refused = xmss::find_refused(name)) {
    KLMS_RAISE(prov, kReasonBadParameter,
               "params: %s is an RFC 8391 set that SP 800-208 does not approve (%s), so klms does not generate "
               "it; choose a SHA-256 or SHAKE256 set such as %s", std::string(refused->name).c_str(),
               std::string(refused->reason).c_str(), std::string(alg.default_params).c_str());
    return nullptr;
  }
  const xmss::Params* params = xmss::find_params(name);
  if (params == nullptr) {
    KLMS_RAISE(prov, kReasonBadParameter,
               "params: unknown parameter set '%s' (sets are named like XMSS-SHA2_20_256, XMSS-SHAKE256_10_192, "
               "XMSSMT-SHA2_40/4_256, K-XMSS-LSH256_10_256; docs/xmss.md lists them)", name.c_str());
    return nullptr;
  }
  const bool mt = params->scheme == xmss::Scheme::kXmssMt;
  const char* wanted = mt ? "-algorithm XMSSMT" : "-algorithm XMSS";
  if ((alg.scheme == KeyScheme::kXmssMt) != mt ||
      (alg.params_prefix.size() > std::string_view("XMSSMT-").size() &&
       std::string_view(params->name).substr(0, alg.params_prefix.size()) != alg.params_prefix)) {
    const std::string generator = alg.params_prefix.substr(0, 2) == "K-" ? std::string(alg.names)
                                                                         : scheme_identity(alg.scheme).long_name;
    KLMS_RAISE(prov, kReasonBadParameter, "params: %s is not a set of %s: use %s%s", std::string(params->name).c_str(),
               generator.c_str(), wanted, params->kxmss ? " (or the K-XMSS key generator of its hash)" : "");
    return nullptr;
  }
  return params;
}

// XMSS, XMSS^MT and K-XMSS key generation: the stateful layer's (stateful/keygen.h) with XMSS's
// scheme; SK_SEED || SK_PRF is the seed, SEED the identifier (supplied, or drawn).
void* gen_xmss(GenContext* ctx, OSSL_CALLBACK* cb, void* cbarg) {
  ProviderContext* prov = ctx->provider;
  const KeyAlgorithm& alg = key_algorithms()[ctx->algorithm];
  const GenerationRequest& r = ctx->request;
  const xmss::Params* params = gen_xmss_params(prov, alg, r);
  if (params == nullptr) return nullptr;
  const xmss::XmssScheme scheme(*params);
  const stateful::KeySizes sizes = scheme.sizes();
  if (r.seed && r.seed->size() != sizes.seed) {
    KLMS_RAISE(prov, kReasonBadParameter, "seed: must be exactly %zu bytes (SK_SEED || SK_PRF) for %s, got %zu",
               sizes.seed, std::string(params->name).c_str(), r.seed->size());
    return nullptr;
  }
  if (r.identifier && r.identifier->size() != sizes.identifier) {
    KLMS_RAISE(prov, kReasonBadParameter, "identifier: must be exactly %zu bytes (SEED) for %s, got %zu",
               sizes.identifier, std::string(params->name).c_str(), r.identifier->size());
    return nullptr;
  }
  stateful::KeygenRequest request;
  request.seed.seed.resize(sizes.seed);
  request.seed.identifier.resize(sizes.identifier);
  if (r.seed) {
    std::memcpy(request.seed.seed.data(), r.seed->data(), sizes.seed);
  } else if (RAND_priv_bytes_ex(prov->libctx, request.seed.seed.data(), sizes.seed, 0) != 1) {
    KLMS_RAISE(prov, kReasonInternal, "the random generator failed to give a seed");
    return nullptr;
  }
  if (r.identifier) {
    std::memcpy(request.seed.identifier.data(), r.identifier->data(), sizes.identifier);
  } else if (RAND_bytes_ex(prov->libctx, request.seed.identifier.data(), sizes.identifier, 0) != 1) {
    KLMS_RAISE(prov, kReasonInternal, "the random generator failed to give SEED");
    return nullptr;
  }
  request.seed.seeded = r.seed.has_value() || r.identifier.has_value();
  if (!gen_state_file(prov, r, request.seed.identifier, request.state_file, request.state_options)) return nullptr;
  if (cb != nullptr) request.build.progress = gen_progress(cb, cbarg);
  if (ctx->progress_lines.value_or(stateful::progress_requested_by_environment())) {
    request.build.progress =
        stateful::keygen_progress_lines(scheme, request.state_file, std::move(request.build.progress));
    request.build.report_from_leaves = 0;
  }
  auto generated = stateful::generate_key(scheme, request);
  if (!generated) {
    raise_keygen_error(prov, generated.error(), request.state_file);
    return nullptr;
  }
  auto& build = static_cast<xmss::XmssKeyBuild&>(*generated->key);
  klms::Error error = klms::Error::kOk;
  auto material = make_xmss_private_material(std::move(build.xmss_key()), build.public_key(), error);
  if (!material) {
    KLMS_RAISE_LMS(prov, error, "key generation");
    return nullptr;
  }
  material->kept.keep_own_signer(generated->signer);
  auto* key = new ProviderKey;  // NOLINT(bugprone-unhandled-exception-at-new): called inside guarded(), which catches it
  key->provider = prov;
  key->algorithm = ctx->algorithm;
  key->material = std::move(material);
  return key;
}

void* gen(void* genctx, OSSL_CALLBACK* cb, void* cbarg) noexcept {
  auto* ctx = static_cast<GenContext*>(genctx);
  ProviderContext* prov = ctx->provider;
  return guarded(prov, "key generation", static_cast<void*>(nullptr), [&]() -> void* {
    if (key_algorithms()[ctx->algorithm].scheme != KeyScheme::kHss) return gen_xmss(ctx, cb, cbarg);
    if (ctx->request.params) {
      KLMS_RAISE(prov, kReasonBadParameter,
                 "params: HSS-LMS keys take lms/ots or hash/height/winternitz; params names an XMSS set "
                 "(use -algorithm XMSS or XMSSMT)");
      return nullptr;
    }
    lms::KeygenRequest request;
    if (!gen_levels(prov, ctx->request, request) || !gen_seed_and_identifier(prov, ctx->request, request) ||
        !gen_state_file(prov, ctx->request, request.identifier, request.state_file, request.state_options)) {
      return nullptr;
    }
    if (cb != nullptr) request.build.progress = gen_progress(cb, cbarg);
    // Lines on stderr only when asked for (docs/developer-kit.md "Progress"); then every tree reports.
    if (ctx->progress_lines.value_or(stateful::progress_requested_by_environment())) {
      request.build.progress = stateful::keygen_progress_lines(lms::HssScheme(request.levels), request.state_file,
                                                               std::move(request.build.progress));
      request.build.report_from_leaves = 0;
    }
    auto generated = lms::generate_key(request);
    if (!generated) {
      raise_keygen_error(prov, generated.error(), request.state_file);
      return nullptr;
    }
    return gen_key_object(prov, *generated);
  });
}

template <std::uint8_t Algorithm>
const OSSL_DISPATCH kKeymgmtDispatch[] = {
    KLMS_DISPATCH(KEYMGMT_NEW, keymgmt_new, &key_new<Algorithm>),
    KLMS_DISPATCH(KEYMGMT_FREE, keymgmt_free, &key_free),
    KLMS_DISPATCH(KEYMGMT_DUP, keymgmt_dup, &key_dup),
    KLMS_DISPATCH(KEYMGMT_HAS, keymgmt_has, &key_has),
    KLMS_DISPATCH(KEYMGMT_MATCH, keymgmt_match, &key_match),
    KLMS_DISPATCH(KEYMGMT_IMPORT, keymgmt_import, &key_import),
    KLMS_DISPATCH(KEYMGMT_IMPORT_TYPES, keymgmt_import_types, &key_import_types),
    KLMS_DISPATCH(KEYMGMT_EXPORT, keymgmt_export, &key_export),
    KLMS_DISPATCH(KEYMGMT_EXPORT_TYPES, keymgmt_export_types, &key_export_types),
    KLMS_DISPATCH(KEYMGMT_GET_PARAMS, keymgmt_get_params, &key_get_params),
    KLMS_DISPATCH(KEYMGMT_GETTABLE_PARAMS, keymgmt_gettable_params, &key_gettable_params),
    KLMS_DISPATCH(KEYMGMT_VALIDATE, keymgmt_validate, &key_validate),
    KLMS_DISPATCH(KEYMGMT_QUERY_OPERATION_NAME, keymgmt_query_operation_name, &key_query_operation_name<Algorithm>),
    KLMS_DISPATCH(KEYMGMT_LOAD, keymgmt_load, &key_load),
    KLMS_DISPATCH(KEYMGMT_GEN_INIT, keymgmt_gen_init, &gen_init<Algorithm>),
    KLMS_DISPATCH(KEYMGMT_GEN_SET_PARAMS, keymgmt_gen_set_params, &gen_set_params),
    KLMS_DISPATCH(KEYMGMT_GEN_SETTABLE_PARAMS, keymgmt_gen_settable_params, &gen_settable_params),
    KLMS_DISPATCH(KEYMGMT_GEN, keymgmt_gen, &gen),
    KLMS_DISPATCH(KEYMGMT_GEN_CLEANUP, keymgmt_gen_cleanup, &gen_cleanup),
    KLMS_DISPATCH_END};

// One dispatch table per key manager (provider/algorithms.h), in the same order.
const OSSL_DISPATCH* const kKeymgmtDispatches[] = {kKeymgmtDispatch<0>, kKeymgmtDispatch<1>, kKeymgmtDispatch<2>,
                                                   kKeymgmtDispatch<3>, kKeymgmtDispatch<4>, kKeymgmtDispatch<5>,
                                                   kKeymgmtDispatch<6>, kKeymgmtDispatch<7>};
static_assert(std::size(kKeymgmtDispatches) == kMaxKeyAlgorithms);

}  // namespace

const OSSL_ALGORITHM* keymgmt_algorithms() noexcept {
  // Built once (the K-XMSS names come from the family table); never freed: OpenSSL keeps pointers.
  static const OSSL_ALGORITHM* table = []() noexcept -> const OSSL_ALGORITHM* {
    try {
      static std::vector<std::string> names;
      static std::vector<OSSL_ALGORITHM> rows;
      const auto algorithms = key_algorithms();
      names.reserve(algorithms.size());
      for (const KeyAlgorithm& a : algorithms) names.emplace_back(a.names);
      for (std::size_t i = 0; i < algorithms.size(); ++i) {
        rows.push_back({names[i].c_str(), kProperties, kKeymgmtDispatches[i], algorithms[i].description.data()});
      }
      rows.push_back({nullptr, nullptr, nullptr, nullptr});
      return rows.data();
    } catch (...) {
      return nullptr;
    }
  }();
  return table;
}

}  // namespace klms::provider
