// Key generation and random numbers ("Key management functions", "Random number generation
// functions" and the HSS section of the specification). CKM_HSS_KEY_PAIR_GEN makes the key's state
// file first (exclusively, docs/state.md §3), then writes the private and public objects; the
// engine's work runs with the module unlocked.
#include <cstring>

#include "pkcs11/c_boundary.h"
#include "pkcs11/signing_keys.h"
#include "pkcs11/templates.h"
#include "pkcs11/token_objects.h"
#include "pkcs11/uri.h"

using namespace klms::pkcs11;

namespace {

std::string describe_levels(const std::vector<engine::LevelTypes>& levels) {
  std::string s;
  for (const auto& l : levels) {
    if (!s.empty()) s += ",";
    s += std::to_string(l.lms) + "/" + std::to_string(l.ots);
  }
  return s;
}

}  // namespace

KLMS_PKCS11_EXPORT CK_RV C_GenerateKeyPair(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,
                                           CK_ATTRIBUTE_PTR pPublicKeyTemplate, CK_ULONG ulPublicKeyAttributeCount,
                                           CK_ATTRIBUTE_PTR pPrivateKeyTemplate, CK_ULONG ulPrivateKeyAttributeCount,
                                           CK_OBJECT_HANDLE_PTR phPublicKey, CK_OBJECT_HANDLE_PTR phPrivateKey) {
  return with_session("C_GenerateKeyPair", hSession, [&](Module& m, Session& s, ModuleLock& lock) -> CK_RV {
    if (pMechanism == nullptr || phPublicKey == nullptr || phPrivateKey == nullptr) return CKR_ARGUMENTS_BAD;
    if (pMechanism->mechanism != CKM_HSS_KEY_PAIR_GEN) return CKR_MECHANISM_INVALID;
    if (pMechanism->pParameter != nullptr || pMechanism->ulParameterLen != 0) return CKR_MECHANISM_PARAM_INVALID;
    KeyPairTemplate t;
    std::string why;
    if (const CK_RV rv = parse_key_pair_templates(pPublicKeyTemplate, ulPublicKeyAttributeCount, pPrivateKeyTemplate,
                                                  ulPrivateKeyAttributeCount, t, why);
        rv != CKR_OK) {
      log_line(LogLevel::kError, "C_GenerateKeyPair: %s", why.c_str());
      return rv;
    }
    if (const klms::Error e = engine::check_levels(t.levels, why); e != klms::Error::kOk) {
      log_line(LogLevel::kError, "C_GenerateKeyPair: %s", why.c_str());
      return e == klms::Error::kUnknownLmsType ? CKR_ATTRIBUTE_VALUE_INVALID : CKR_TEMPLATE_INCONSISTENT;
    }
    Slot* slot = m.slot(s.slot);
    if (slot->login != Login::kUser) return CKR_USER_NOT_LOGGED_IN;
    if (!s.rw) return CKR_SESSION_READ_ONLY;
    CK_RV rv = CKR_OK;
    auto meta = slot->store.load(rv);
    if (!meta) return rv == CKR_OK ? CKR_TOKEN_NOT_RECOGNIZED : rv;

    Object& priv = t.private_key;
    Object& pub = t.public_key;
    if (!new_uid(priv.uid) || (pub.token && !new_uid(pub.uid))) return CKR_FUNCTION_FAILED;
    const std::string state = state_path(slot->store.dir(), priv.uid);
    const engine::StatePolicy policy = slot->store.config().policy;
    const TokenStore store = slot->store;
    TokenKey token_key = slot->token_key;
    const CK_SLOT_ID slot_id = s.slot;

    // The engine's work (the top tree: seconds for H15, minutes for H20+) and the files, unlocked.
    lock.unlock();
    auto generated = engine::generate(t.levels, state, policy);
    if (!generated) {
      lock.lock();
      log_line(LogLevel::kError, "C_GenerateKeyPair: key generation refused: %s",
               engine::explain(generated.error(), state).c_str());
      return CKR_FUNCTION_FAILED;
    }
    const klms::Bytes& raw = generated->public_key;
    const auto key_id = engine::key_id(klms::ByteView(raw.data(), raw.size()));
    for (Object* o : {&priv, &pub}) {
      o->public_key = raw;
      o->local = true;
      o->level_count = static_cast<std::uint32_t>(t.levels.size());
    }
    priv.levels = t.levels;
    pub.levels = {t.levels.front()};
    if (!t.private_id_given) priv.id.assign(key_id.begin(), key_id.end());
    if (!t.public_id_given) pub.id.assign(key_id.begin(), key_id.end());
    priv.sealed = seal(token_key, klms::ByteView(generated->private_key.data(), generated->private_key.size()),
                       sealing_context(priv.uid, raw));
    if (priv.sealed.empty()) {
      lock.lock();
      return CKR_FUNCTION_FAILED;  // the state file stays, never used: klms-state discard removes it
    }
    rv = store_token_object(store.dir(), priv);
    if (rv == CKR_OK && pub.token) rv = store_token_object(store.dir(), pub);
    lock.lock();
    if (rv != CKR_OK) return rv;
    log_line(LogLevel::kInfo, "token %s: generated HSS key %s (levels %s), state file %s, %s", store.dir().c_str(),
             priv.uid.c_str(), describe_levels(t.levels).c_str(), state.c_str(),
             pkcs11_uri(meta->label, priv.id, true).c_str());

    if (!m.initialized || m.session(hSession) == nullptr) return CKR_SESSION_HANDLE_INVALID;
    Slot* now = m.slot(slot_id);
    // Keep the signer key generation made, with its top tree in memory, for this login's signatures.
    if (now->login == Login::kUser) now->signing_keys[priv.uid] = std::move(generated->signing);
    *phPrivateKey = m.token_handle(slot_id, priv.uid);
    *phPublicKey = pub.token ? m.token_handle(slot_id, pub.uid)
                             : m.add_session_object(slot_id, hSession, std::make_shared<Object>(std::move(pub)));
    return CKR_OK;
  });
}

KLMS_PKCS11_EXPORT CK_RV C_GenerateRandom(CK_SESSION_HANDLE hSession, CK_BYTE_PTR RandomData, CK_ULONG ulRandomLen) {
  return with_session("C_GenerateRandom", hSession, [&](Module&, Session&, ModuleLock&) -> CK_RV {
    if (RandomData == nullptr && ulRandomLen > 0) return CKR_ARGUMENTS_BAD;
    if (ulRandomLen == 0) return CKR_OK;
    return random_bytes(RandomData, ulRandomLen) ? CKR_OK : CKR_FUNCTION_FAILED;
  });
}

KLMS_PKCS11_EXPORT CK_RV C_SeedRandom(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pSeed, CK_ULONG ulSeedLen) {
  return with_session("C_SeedRandom", hSession, [&](Module&, Session&, ModuleLock&) -> CK_RV {
    if (pSeed == nullptr && ulSeedLen > 0) return CKR_ARGUMENTS_BAD;
    return CKR_RANDOM_SEED_NOT_SUPPORTED;  // OpenSSL's generator seeds itself from the system
  });
}

KLMS_PKCS11_EXPORT CK_RV C_GenerateKey(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_ATTRIBUTE_PTR,
                                       CK_ULONG, CK_OBJECT_HANDLE_PTR) {
  return with_session("C_GenerateKey", hSession, [&](Module&, Session&, ModuleLock&) -> CK_RV {
    return pMechanism == nullptr ? CKR_ARGUMENTS_BAD : CKR_MECHANISM_INVALID;  // no secret keys here
  });
}

KLMS_PKCS11_EXPORT CK_RV C_WrapKey(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_OBJECT_HANDLE,
                                   CK_OBJECT_HANDLE, CK_BYTE_PTR, CK_ULONG_PTR) {
  return with_session("C_WrapKey", hSession, [&](Module&, Session&, ModuleLock&) -> CK_RV {
    // An HSS private key never leaves the token (CKA_EXTRACTABLE CK_FALSE).
    return pMechanism == nullptr ? CKR_ARGUMENTS_BAD : CKR_MECHANISM_INVALID;
  });
}

KLMS_PKCS11_EXPORT CK_RV C_UnwrapKey(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_OBJECT_HANDLE,
                                     CK_BYTE_PTR, CK_ULONG, CK_ATTRIBUTE_PTR, CK_ULONG, CK_OBJECT_HANDLE_PTR) {
  return with_session("C_UnwrapKey", hSession, [&](Module&, Session&, ModuleLock&) -> CK_RV {
    return pMechanism == nullptr ? CKR_ARGUMENTS_BAD : CKR_MECHANISM_INVALID;
  });
}

KLMS_PKCS11_EXPORT CK_RV C_DeriveKey(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_OBJECT_HANDLE,
                                     CK_ATTRIBUTE_PTR, CK_ULONG, CK_OBJECT_HANDLE_PTR) {
  return with_session("C_DeriveKey", hSession, [&](Module&, Session&, ModuleLock&) -> CK_RV {
    return pMechanism == nullptr ? CKR_ARGUMENTS_BAD : CKR_MECHANISM_INVALID;
  });
}
