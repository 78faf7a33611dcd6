// Encoders (DER, PEM, text; SubjectPublicKeyInfo, PKCS#8 v2, encrypted PKCS#8) and decoders
// (SubjectPublicKeyInfo, PKCS#8, EncryptedPrivateKeyInfo) for HSS/LMS, XMSS and XMSS^MT keys: the
// encoders under every key manager's names, the decoders under each scheme's (its OID decides).
#include "provider/codecs.h"

#include <openssl/bio.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/core_object.h>
#include <openssl/crypto.h>
#include <openssl/params.h>
#include <openssl/pem.h>

#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "base/secret.h"
#include "provider/c_boundary.h"
#include "provider/errors.h"
#include "provider/key.h"
#include "provider/key_codec.h"
#include "provider/key_text.h"
#include "provider/names.h"
#include "state/remedy.h"
#include "state/store.h"

namespace klms::provider {
namespace {

enum class Structure { kSpki, kPrivateKeyInfo, kEncryptedPrivateKeyInfo, kText };
enum class Format { kDer, kPem, kText };

struct CodecContext {
  ProviderContext* provider = nullptr;
  std::string cipher;      // encoders: encrypt the private key with this cipher
  std::string properties;  // for fetching the cipher
};

struct BioDeleter {
  void operator()(BIO* b) const noexcept { BIO_free(b); }
};
using BioPtr = std::unique_ptr<BIO, BioDeleter>;

void* codec_newctx(void* provctx) noexcept {
  auto* ctx = new (std::nothrow) CodecContext;
  if (ctx != nullptr) ctx->provider = static_cast<ProviderContext*>(provctx);
  return ctx;
}

void codec_freectx(void* vctx) noexcept { delete static_cast<CodecContext*>(vctx); }

int set_encoder_params(CodecContext* ctx, const OSSL_PARAM params[]) {
  const char* s = nullptr;
  const OSSL_PARAM* p = OSSL_PARAM_locate_const(params, OSSL_ENCODER_PARAM_CIPHER);
  if (p != nullptr) {
    if (!OSSL_PARAM_get_utf8_string_ptr(p, &s)) return 0;
    ctx->cipher = s != nullptr ? s : "";
  }
  p = OSSL_PARAM_locate_const(params, OSSL_ENCODER_PARAM_PROPERTIES);
  if (p != nullptr) {
    if (!OSSL_PARAM_get_utf8_string_ptr(p, &s)) return 0;
    ctx->properties = s != nullptr ? s : "";
  }
  return 1;
}

int encoder_set_ctx_params(void* vctx, const OSSL_PARAM params[]) noexcept {
  auto* ctx = static_cast<CodecContext*>(vctx);
  return guarded(ctx->provider, "encoder parameters", 0, [&] { return set_encoder_params(ctx, params); });
}

const OSSL_PARAM* encoder_settable_ctx_params(void* /*provctx*/) noexcept {
  static const OSSL_PARAM table[] = {OSSL_PARAM_utf8_string(OSSL_ENCODER_PARAM_CIPHER, nullptr, 0),
                                     OSSL_PARAM_utf8_string(OSSL_ENCODER_PARAM_PROPERTIES, nullptr, 0),
                                     OSSL_PARAM_END};
  return table;
}

template <Structure S>
int encoder_does_selection(void* /*provctx*/, int selection) noexcept {
  if (S == Structure::kSpki) return (selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY) != 0;
  if (S == Structure::kText) return (selection & OSSL_KEYMGMT_SELECT_KEYPAIR) != 0;
  return (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0;
}

bool write_output(CodecContext* ctx, OSSL_CORE_BIO* cout, Format format, const char* pem_label,
                  const unsigned char* data, std::size_t len) {
  BioPtr out(BIO_new_from_core_bio(ctx->provider->libctx, cout));
  if (!out) return false;
  if (format == Format::kPem) return PEM_write_bio(out.get(), pem_label, "", data, static_cast<long>(len)) > 0;
  return BIO_write(out.get(), data, static_cast<int>(len)) == static_cast<int>(len);
}

bool ask_passphrase(CodecContext* ctx, OSSL_PASSPHRASE_CALLBACK* cb, void* cbarg, char* buf, std::size_t size,
                    std::size_t& len, bool verify, const char* what) {
  if (cb == nullptr) {
    KLMS_RAISE(ctx->provider, kReasonEncryptFailed, "a passphrase is needed but no way to ask for one was given");
    return false;
  }
  int verify_flag = verify ? 1 : 0;
  OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_PASSPHRASE_PARAM_INFO, const_cast<char*>(what), 0),
                         OSSL_PARAM_END, OSSL_PARAM_END};
  (void)verify_flag;
  return cb(buf, size, &len, params, cbarg) != 0;
}

// A private key that could not be encoded may exist nowhere else (genpkey builds the whole tree and
// creates its state file before the encoder asks for a passphrase): name the unused state file
// and the command that removes it (docs/state.md "Where the state lives").
void raise_unwritten_key_hint(CodecContext* ctx, const KeyMaterial& m) {
  if (!m.has_private()) return;
  const std::string& path = m.state_file();
  auto info = state::read_state_file(path);
  if (!info || !info->never_used()) return;
  const std::string word = state::shell_word(path);
  KLMS_RAISE(ctx->provider, kReasonEncryptFailed,
             "the private key was not written; its state file %s was created and never used: if no key file "
             "holds this key, remove it with `klms-state discard %s`",
             path.c_str(), word.c_str());
}

template <Structure S, Format F>
int encoder_encode(void* vctx, OSSL_CORE_BIO* cout, const void* obj_raw, const OSSL_PARAM /*obj_abstract*/[],
                   int selection, OSSL_PASSPHRASE_CALLBACK* cb, void* cbarg) noexcept {
  auto* ctx = static_cast<CodecContext*>(vctx);
  const auto* key = static_cast<const ProviderKey*>(obj_raw);
  return guarded(ctx->provider, "encoding a key", 0, [&] {
    if (key == nullptr || !key->material) {
      KLMS_RAISE(ctx->provider, kReasonInvalidArgument, "no key to encode");
      return 0;
    }
    const KeyMaterial& m = *key->material;
    if constexpr (S == Structure::kSpki) {
      const klms::Bytes der = encode_spki(m);
      return write_output(ctx, cout, F, PEM_STRING_PUBLIC, der.data(), der.size()) ? 1 : 0;
    } else if constexpr (S == Structure::kText) {
      const bool with_private = (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0;
      const std::string text = key_text(m, with_private, state_options(*ctx->provider));
      return write_output(ctx, cout, Format::kDer, nullptr, reinterpret_cast<const unsigned char*>(text.data()),
                          text.size()) ? 1 : 0;
    } else {
      if (!m.has_private()) {
        KLMS_RAISE(ctx->provider, kReasonNotPrivateKey, "the key has no private part to encode");
        return 0;
      }
      const lms::SecretBytes plain = encode_private_key_info(m);
      if (ctx->cipher.empty() && S == Structure::kPrivateKeyInfo) {
        return write_output(ctx, cout, F, PEM_STRING_PKCS8INF, plain.data(), plain.size()) ? 1 : 0;
      }
      if (ctx->cipher.empty()) {
        KLMS_RAISE(ctx->provider, kReasonEncryptFailed, "EncryptedPrivateKeyInfo asked for without a cipher");
        return 0;
      }
      // Wiped on every exit: success, each error return, an exception.
      klms::SecretArray<1024> pass;
      std::size_t pass_len = 0;
      const std::string what = std::string(m.identity().name) + " private key";
      if (!ask_passphrase(ctx, cb, cbarg, pass.chars(), pass.size(), pass_len, true, what.c_str()) ||
          pass_len > pass.size()) {
        KLMS_RAISE(ctx->provider, kReasonEncryptFailed, "no passphrase for encrypting the private key");
        raise_unwritten_key_hint(ctx, m);
        return 0;
      }
      klms::Bytes encrypted;
      const bool ok = encrypt_private_key_info(ctx->provider->libctx, ctx->cipher.c_str(),
                                               ctx->properties.empty() ? nullptr : ctx->properties.c_str(), plain,
                                               pass.chars(), pass_len, encrypted);
      if (!ok) {
        KLMS_RAISE(ctx->provider, kReasonEncryptFailed, "cannot encrypt the private key with cipher '%s'",
                   ctx->cipher.c_str());
        raise_unwritten_key_hint(ctx, m);
        return 0;
      }
      return write_output(ctx, cout, F, PEM_STRING_PKCS8, encrypted.data(), encrypted.size()) ? 1 : 0;
    }
  });
}

template <Structure S, Format F>
const OSSL_DISPATCH kEncoder[] = {
    KLMS_DISPATCH(ENCODER_NEWCTX, encoder_newctx, &codec_newctx),
    KLMS_DISPATCH(ENCODER_FREECTX, encoder_freectx, &codec_freectx),
    KLMS_DISPATCH(ENCODER_SET_CTX_PARAMS, encoder_set_ctx_params, &encoder_set_ctx_params),
    KLMS_DISPATCH(ENCODER_SETTABLE_CTX_PARAMS, encoder_settable_ctx_params, &encoder_settable_ctx_params),
    KLMS_DISPATCH(ENCODER_DOES_SELECTION, encoder_does_selection, &encoder_does_selection<S>),
    KLMS_DISPATCH(ENCODER_ENCODE, encoder_encode, (&encoder_encode<S, F>)),
    KLMS_DISPATCH_END};

// ---- Decoders ----

int decoder_set_ctx_params(void* /*vctx*/, const OSSL_PARAM /*params*/[]) noexcept { return 1; }
const OSSL_PARAM* decoder_settable_ctx_params(void* /*provctx*/) noexcept {
  static const OSSL_PARAM table[] = {OSSL_PARAM_utf8_string(OSSL_DECODER_PARAM_PROPERTIES, nullptr, 0), OSSL_PARAM_END};
  return table;
}

template <Structure S>
int decoder_does_selection(void* /*provctx*/, int selection) noexcept {
  if (selection == 0) return 1;
  if (S == Structure::kSpki) return (selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY) != 0;
  return (selection & OSSL_KEYMGMT_SELECT_KEYPAIR) != 0;
}

bool read_all(CodecContext* ctx, OSSL_CORE_BIO* cin, lms::SecretBytes& out) {
  BioPtr in(BIO_new_from_core_bio(ctx->provider->libctx, cin));
  if (!in) return false;
  klms::SecretArray<4096> buf;  // may hold an unencrypted private key: wiped on every exit
  for (;;) {
    const int n = BIO_read(in.get(), buf.data(), static_cast<int>(buf.size()));
    if (n <= 0) break;
    klms::append_bytes(out, buf.data(), static_cast<std::size_t>(n));
    if (out.size() > (1u << 20)) return false;  // no key is this large
  }
  return true;
}

bool hand_over(CodecContext* ctx, std::shared_ptr<const KeyMaterial> material, OSSL_CALLBACK* data_cb,
               void* data_cbarg) {
  auto* key = new ProviderKey;
  key->provider = ctx->provider;
  // The scheme's own key manager (provider/algorithms.h: HSS-LMS 0, XMSS 1, XMSSMT 2).
  key->algorithm = static_cast<std::uint8_t>(material->scheme);
  const char* data_type = material->identity().long_name;
  key->material = std::move(material);
  int object_type = OSSL_OBJECT_PKEY;
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_int(OSSL_OBJECT_PARAM_TYPE, &object_type),
      OSSL_PARAM_construct_utf8_string(OSSL_OBJECT_PARAM_DATA_TYPE, const_cast<char*>(data_type), 0),
      OSSL_PARAM_construct_octet_string(OSSL_OBJECT_PARAM_REFERENCE, &key, kKeyReferenceBytes), OSSL_PARAM_END};
  const int ok = data_cb(params, data_cbarg);
  delete key;  // null when the key manager took it (key_load)
  return ok != 0;
}

template <Structure S, KeyScheme K>
int decoder_decode(void* vctx, OSSL_CORE_BIO* cin, int selection, OSSL_CALLBACK* data_cb, void* data_cbarg,
                   OSSL_PASSPHRASE_CALLBACK* pw_cb, void* pw_cbarg) noexcept {
  auto* ctx = static_cast<CodecContext*>(vctx);
  const std::string what = std::string("decoding an ") + scheme_identity(K).name + " key";
  return guarded(ctx->provider, "decoding a key", 0, [&] {
    lms::SecretBytes input;
    if (!read_all(ctx, cin, input)) return 1;  // empty-handed: not for us
    klms::ByteView der(input.data(), input.size());
    lms::SecretBytes decrypted;
    std::shared_ptr<const KeyMaterial> material;
    klms::Error error = klms::Error::kOk;
    DecodeStatus status = DecodeStatus::kNotOurs;
    if constexpr (S == Structure::kSpki) {
      status = decode_spki(der, K, material, error);
    } else {
      if constexpr (S == Structure::kEncryptedPrivateKeyInfo) {
        // Only ask for a passphrase for something that is an EncryptedPrivateKeyInfo at all.
        if (!looks_like_encrypted_private_key_info(der)) return 1;
        // Wiped on every exit: success, each error return, an exception.
        klms::SecretArray<1024> pass;
        std::size_t pass_len = 0;
        OSSL_PARAM params[] = {OSSL_PARAM_END};
        if (pw_cb == nullptr || !pw_cb(pass.chars(), pass.size(), &pass_len, params, pw_cbarg) ||
            pass_len > pass.size()) {
          KLMS_RAISE(ctx->provider, kReasonDecryptFailed, "no passphrase for the encrypted private key");
          return 0;
        }
        status = decrypt_private_key_info(ctx->provider->libctx, der, pass.chars(), pass_len, decrypted);
        if (status != DecodeStatus::kOk) {
          KLMS_RAISE(ctx->provider, kReasonDecryptFailed, "cannot decrypt the private key (wrong passphrase?)");
          return 0;
        }
        der = klms::ByteView(decrypted.data(), decrypted.size());
      }
      status = decode_private_key_info(der, K, material, error);
    }
    if (status == DecodeStatus::kNotOurs) return 1;
    if (status == DecodeStatus::kMalformed) {
      KLMS_RAISE_LMS(ctx->provider, error, what.c_str());
      return 0;
    }
    (void)selection;
    return hand_over(ctx, std::move(material), data_cb, data_cbarg) ? 1 : 0;
  });
}

int decoder_export_object(void* vctx, const void* reference, size_t reference_size, OSSL_CALLBACK* export_cb,
                          void* export_cbarg) noexcept {
  auto* ctx = static_cast<CodecContext*>(vctx);
  if (reference == nullptr || reference_size != kKeyReferenceBytes) return 0;
  const ProviderKey* key = *static_cast<ProviderKey* const*>(reference);
  if (key == nullptr || !key->material) return 0;
  (void)ctx;
  OSSL_PARAM params[] = {OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY,
                                                           const_cast<unsigned char*>(key->material->public_key.data()),
                                                           key->material->public_key.size()),
                         OSSL_PARAM_END};
  return export_cb(params, export_cbarg);
}

template <Structure S, KeyScheme K>
const OSSL_DISPATCH kDecoder[] = {
    KLMS_DISPATCH(DECODER_NEWCTX, decoder_newctx, &codec_newctx),
    KLMS_DISPATCH(DECODER_FREECTX, decoder_freectx, &codec_freectx),
    KLMS_DISPATCH(DECODER_SET_CTX_PARAMS, decoder_set_ctx_params, &decoder_set_ctx_params),
    KLMS_DISPATCH(DECODER_SETTABLE_CTX_PARAMS, decoder_settable_ctx_params, &decoder_settable_ctx_params),
    KLMS_DISPATCH(DECODER_DOES_SELECTION, decoder_does_selection, &decoder_does_selection<S>),
    KLMS_DISPATCH(DECODER_DECODE, decoder_decode, (&decoder_decode<S, K>)),
    KLMS_DISPATCH(DECODER_EXPORT_OBJECT, decoder_export_object, &decoder_export_object),
    KLMS_DISPATCH_END};

}  // namespace

const OSSL_ALGORITHM* encoder_algorithms() noexcept {
  // Every key manager's keys (provider/algorithms.h) have every encoder; built once, never freed.
  static const OSSL_ALGORITHM* table = []() noexcept -> const OSSL_ALGORITHM* {
    try {
      static std::vector<std::string> names;
      static std::vector<OSSL_ALGORITHM> rows;
      const auto algorithms = key_algorithms();
      names.reserve(algorithms.size());
      for (const KeyAlgorithm& a : algorithms) names.emplace_back(a.names);
      for (const std::string& n : names) {
        const char* name = n.c_str();
        rows.push_back({name, "provider=klms,output=der,structure=SubjectPublicKeyInfo",
                        kEncoder<Structure::kSpki, Format::kDer>, nullptr});
        rows.push_back({name, "provider=klms,output=pem,structure=SubjectPublicKeyInfo",
                        kEncoder<Structure::kSpki, Format::kPem>, nullptr});
        rows.push_back({name, "provider=klms,output=der,structure=PrivateKeyInfo",
                        kEncoder<Structure::kPrivateKeyInfo, Format::kDer>, nullptr});
        rows.push_back({name, "provider=klms,output=pem,structure=PrivateKeyInfo",
                        kEncoder<Structure::kPrivateKeyInfo, Format::kPem>, nullptr});
        rows.push_back({name, "provider=klms,output=der,structure=EncryptedPrivateKeyInfo",
                        kEncoder<Structure::kEncryptedPrivateKeyInfo, Format::kDer>, nullptr});
        rows.push_back({name, "provider=klms,output=pem,structure=EncryptedPrivateKeyInfo",
                        kEncoder<Structure::kEncryptedPrivateKeyInfo, Format::kPem>, nullptr});
        rows.push_back({name, "provider=klms,output=text", kEncoder<Structure::kText, Format::kText>, nullptr});
      }
      rows.push_back({nullptr, nullptr, nullptr, nullptr});
      return rows.data();
    } catch (...) {
      return nullptr;
    }
  }();
  return table;
}

const OSSL_ALGORITHM* decoder_algorithms() noexcept {
  using S = Structure;
  static const OSSL_ALGORITHM table[] = {
      {kHssAlgorithmNames, "provider=klms,input=der,structure=SubjectPublicKeyInfo", kDecoder<S::kSpki, KeyScheme::kHss>,
       nullptr},
      {kHssAlgorithmNames, "provider=klms,input=der,structure=PrivateKeyInfo",
       kDecoder<S::kPrivateKeyInfo, KeyScheme::kHss>, nullptr},
      {kHssAlgorithmNames, "provider=klms,input=der,structure=EncryptedPrivateKeyInfo",
       kDecoder<S::kEncryptedPrivateKeyInfo, KeyScheme::kHss>, nullptr},
      {kXmssDecoderNames, "provider=klms,input=der,structure=SubjectPublicKeyInfo",
       kDecoder<S::kSpki, KeyScheme::kXmss>, nullptr},
      {kXmssDecoderNames, "provider=klms,input=der,structure=PrivateKeyInfo",
       kDecoder<S::kPrivateKeyInfo, KeyScheme::kXmss>, nullptr},
      {kXmssDecoderNames, "provider=klms,input=der,structure=EncryptedPrivateKeyInfo",
       kDecoder<S::kEncryptedPrivateKeyInfo, KeyScheme::kXmss>, nullptr},
      {kXmssMtDecoderNames, "provider=klms,input=der,structure=SubjectPublicKeyInfo",
       kDecoder<S::kSpki, KeyScheme::kXmssMt>, nullptr},
      {kXmssMtDecoderNames, "provider=klms,input=der,structure=PrivateKeyInfo",
       kDecoder<S::kPrivateKeyInfo, KeyScheme::kXmssMt>, nullptr},
      {kXmssMtDecoderNames, "provider=klms,input=der,structure=EncryptedPrivateKeyInfo",
       kDecoder<S::kEncryptedPrivateKeyInfo, KeyScheme::kXmssMt>, nullptr},
      {nullptr, nullptr, nullptr, nullptr}};
  return table;
}

}  // namespace klms::provider
