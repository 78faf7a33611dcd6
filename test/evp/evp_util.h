// Helpers shared by klms-evp-signer and klms-evp-test: loading the provider the way applications
// do, reading keys, and reading the index q out of an HSS signature.
#pragma once

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/provider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace klms::evptest {

// A library context with the klms provider: from the configuration file in $OPENSSL_CONF when
// `use_config` (what an application with an openssl.cnf does), else with OSSL_PROVIDER_load of
// "default" and "klms" (found through $OPENSSL_MODULES). Null on failure, errors on the queue.
inline OSSL_LIB_CTX* load_library_context(bool use_config) {
  OSSL_LIB_CTX* libctx = OSSL_LIB_CTX_new();
  if (libctx == nullptr) return nullptr;
  const char* conf = std::getenv("OPENSSL_CONF");
  if (use_config && conf != nullptr && *conf != '\0') {
    if (OSSL_LIB_CTX_load_config(libctx, conf) != 1) {
      OSSL_LIB_CTX_free(libctx);
      return nullptr;
    }
    if (OSSL_PROVIDER_available(libctx, "klms") == 1) return libctx;
  }
  if (OSSL_PROVIDER_load(libctx, "default") == nullptr || OSSL_PROVIDER_load(libctx, "klms") == nullptr) {
    OSSL_LIB_CTX_free(libctx);
    return nullptr;
  }
  return libctx;
}

inline EVP_PKEY* read_private_key(OSSL_LIB_CTX* libctx, const std::string& path, const char* pass = nullptr) {
  BIO* bio = BIO_new_file(path.c_str(), "rb");
  if (bio == nullptr) return nullptr;
  EVP_PKEY* pkey = PEM_read_bio_PrivateKey_ex(bio, nullptr, nullptr, const_cast<char*>(pass), libctx, nullptr);
  BIO_free(bio);
  return pkey;
}

inline std::string utf8_param(const EVP_PKEY* pkey, const char* name) {
  char buf[1024];
  size_t len = 0;
  if (EVP_PKEY_get_utf8_string_param(pkey, name, buf, sizeof buf, &len) != 1) return {};
  return std::string(buf, len);
}

inline bool uint64_param(const EVP_PKEY* pkey, const char* name, std::uint64_t& out) {
  OSSL_PARAM params[] = {OSSL_PARAM_construct_uint64(name, &out), OSSL_PARAM_construct_end()};
  return EVP_PKEY_get_params(pkey, params) == 1 && OSSL_PARAM_modified(params) == 1;
}

// Sizes of one HSS level, from the parameter-set names (docs/params.md "Names": LMS_<HASH>_M<m>_H<h>,
// LMOTS_<HASH>_N<n>_W<w>; p from n and w as in RFC 8554 Appendix B).
struct LevelShape {
  unsigned m = 0, h = 0, n = 0, w = 0, p = 0;
  std::size_t lms_signature_bytes() const { return 4 + (4 + n + std::size_t{p} * n) + 4 + std::size_t{h} * m; }
  std::size_t public_key_bytes() const { return 4 + 4 + 16 + m; }
};

inline unsigned number_after(const std::string& name, const std::string& tag) {
  const std::size_t at = name.rfind(tag);
  if (at == std::string::npos) return 0;
  return static_cast<unsigned>(std::strtoul(name.c_str() + at + tag.size(), nullptr, 10));
}

inline std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s + ",") {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else if (c != ' ') {
      cur.push_back(c);
    }
  }
  return out;
}

// The shape of every level of a private key (from its `lms` and `ots` parameters).
inline std::vector<LevelShape> key_shape(const EVP_PKEY* pkey) {
  const std::vector<std::string> lms = split_commas(utf8_param(pkey, "lms"));
  std::vector<std::string> ots = split_commas(utf8_param(pkey, "ots"));
  if (ots.size() == 1 && lms.size() > 1) ots.assign(lms.size(), ots.front());
  std::vector<LevelShape> levels;
  if (lms.empty() || ots.size() != lms.size()) return levels;
  for (std::size_t i = 0; i < lms.size(); ++i) {
    LevelShape s;
    s.m = number_after(lms[i], "_M");
    s.h = number_after(lms[i], "_H");
    s.n = number_after(ots[i], "_N");
    s.w = number_after(ots[i], "_W");
    if (s.m == 0 || s.h == 0 || s.n == 0 || s.w == 0) return {};
    const unsigned u = (8 * s.n + s.w - 1) / s.w;
    unsigned lg = 0;
    for (unsigned long v = ((1ul << s.w) - 1) * u; v > 1; v >>= 1) ++lg;  // floor(log2)
    const unsigned v = (lg + 1 + s.w - 1) / s.w;
    s.p = u + v;
    levels.push_back(s);
  }
  return levels;
}

inline std::uint32_t be32(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}

// The per-level q's of an HSS signature and the global index they make; false when the signature
// does not have the key's shape.
inline bool signature_index(const std::vector<LevelShape>& levels, const unsigned char* sig, std::size_t len,
                            std::uint64_t& global, std::vector<std::uint32_t>* per_level = nullptr) {
  if (levels.empty() || len < 4) return false;
  if (be32(sig) + 1 != levels.size()) return false;
  std::size_t off = 4;
  global = 0;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    if (off + 4 > len) return false;
    const std::uint32_t q = be32(sig + off);
    if (per_level != nullptr) per_level->push_back(q);
    global = (global << levels[i].h) | q;
    off += levels[i].lms_signature_bytes();
    if (i + 1 < levels.size()) off += levels[i + 1].public_key_bytes();
  }
  return off == len;
}

// The OpenSSL error queue as text (and emptied).
inline std::string error_text() {
  std::string out;
  unsigned long code;
  const char* data = nullptr;
  int flags = 0;
  while ((code = ERR_get_error_all(nullptr, nullptr, nullptr, &data, &flags)) != 0) {
    char buf[512];
    ERR_error_string_n(code, buf, sizeof buf);
    out += buf;
    if (data != nullptr && (flags & ERR_TXT_STRING) != 0) {
      out += ":";
      out += data;
    }
    out += "\n";
  }
  return out;
}

}  // namespace klms::evptest
