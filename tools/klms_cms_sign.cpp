// klms-cms-sign: an RFC 9708 CMS SignedData with an HSS/LMS (or K-LMS) key.
//
// OpenSSL 3.0's `openssl cms -sign` cannot set the signature algorithm of a provider key: its
// SignerInfo code only fills signatureAlgorithm for RSA, DSA and EC keys. With an HSS/LMS key it
// stops at "no default digest", and with `-md sha256` it signs but cannot encode the empty
// signatureAlgorithm ("illegal zero content"). The CMS API itself works on 3.0, so this command
// uses it the way `cms -sign` does, with one extra step:
//
//   CMS_sign_ex(CMS_PARTIAL)       an empty SignedData, extra certificates added
//   CMS_add1_signer                a SignerInfo with the signer certificate, digestAlgorithm
//                                  SHA-256 (SHA-256 and K-LMS sets) or SHAKE256 (SHAKE sets)
//   CMS_SignerInfo_get0_algs       signatureAlgorithm := id-alg-hss-lms-hashsig, parameters absent
//   CMS_final                      hashes the content, adds the signed attributes (contentType,
//                                  messageDigest, signingTime) and signs them with the provider
//
// The content is always signed as binary (no MIME canonicalisation of line ends), and signed
// attributes are always present (RFC 9708).
//
// Exit status: 0 written, 1 failed (unreadable input, wrong key, signing refused), 2 usage.
#include <openssl/bio.h>
#include <openssl/pem.h>  // before openssl/cms.h: it declares PEM_write_bio_CMS through openssl/pem.h's macros
#include <openssl/cms.h>
#include <openssl/decoder.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/provider.h>
#include <openssl/ui.h>
#include <openssl/x509.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;
constexpr const char* kProgram = "klms-cms-sign";
constexpr const char* kHssOid = "1.2.840.113549.1.9.16.3.17";  // id-alg-hss-lms-hashsig

// ---- RAII for the OpenSSL objects ----

template <auto Free>
struct Deleter {
  template <typename T>
  void operator()(T* p) const noexcept {
    if (p != nullptr) Free(p);
  }
};
struct CertStackDeleter {
  void operator()(STACK_OF(X509) * s) const noexcept { sk_X509_pop_free(s, X509_free); }
};

using BioPtr = std::unique_ptr<BIO, Deleter<BIO_free_all>>;
using X509Ptr = std::unique_ptr<X509, Deleter<X509_free>>;
using PkeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY_free>>;
using MdPtr = std::unique_ptr<EVP_MD, Deleter<EVP_MD_free>>;
using CmsPtr = std::unique_ptr<CMS_ContentInfo, Deleter<CMS_ContentInfo_free>>;
using DecoderPtr = std::unique_ptr<OSSL_DECODER_CTX, Deleter<OSSL_DECODER_CTX_free>>;
using ObjectPtr = std::unique_ptr<ASN1_OBJECT, Deleter<ASN1_OBJECT_free>>;
using ProviderPtr = std::unique_ptr<OSSL_PROVIDER, Deleter<OSSL_PROVIDER_unload>>;
using CertStackPtr = std::unique_ptr<STACK_OF(X509), CertStackDeleter>;

// A passphrase that is wiped when it goes.
class Secret {
 public:
  Secret() = default;
  Secret(const Secret&) = delete;
  Secret& operator=(const Secret&) = delete;
  ~Secret() { wipe(); }
  void assign(std::string_view v) {
    wipe();
    value_.assign(v.data(), v.size());
  }
  const std::string& value() const noexcept { return value_; }

 private:
  void wipe() noexcept {
    if (!value_.empty()) OPENSSL_cleanse(value_.data(), value_.size());
    value_.clear();
  }
  std::string value_;
};

struct Options {
  std::string in;  // empty: stdin
  std::string out;  // empty: stdout
  std::string signer;
  std::string inkey;  // empty: the signer file
  std::vector<std::string> certfiles;
  bool detached = false;
  bool pem = true;
  std::optional<std::string> pass;  // pass:, env:, file:, stdin
  std::vector<std::string> providers;
  std::string provider_path;
  std::string propquery;
};

void usage(std::FILE* to) {
  std::fprintf(to,
               "Usage: %s -signer CERT [-inkey KEY] [-in FILE] [-out FILE] [options]\n"
               "\n"
               "Writes an RFC 9708 CMS SignedData signed with an HSS/LMS or K-LMS private key:\n"
               "signed attributes (contentType, messageDigest, signingTime), digestAlgorithm\n"
               "SHA-256 (SHAKE256 for SHAKE parameter sets), signatureAlgorithm\n"
               "id-alg-hss-lms-hashsig (1.2.840.113549.1.9.16.3.17) without parameters, and the\n"
               "signer certificate. The content is signed as binary. Verify with\n"
               "  openssl cms -verify -binary -CAfile ROOT.crt -in OUT [-content FILE] [-inform DER]\n"
               "Each signature uses one index of the key's state file.\n"
               "\n"
               "Options:\n"
               "  -in FILE            content to sign (default: standard input)\n"
               "  -out FILE           where to write the SignedData (default: standard output)\n"
               "  -signer FILE        signer certificate, PEM or DER (required)\n"
               "  -inkey FILE         private key, PEM or DER, PKCS#8 or encrypted PKCS#8\n"
               "                      (default: the -signer file)\n"
               "  -certfile FILE      more certificates to include (PEM, may be repeated)\n"
               "  -detached           leave the content out of the SignedData\n"
               "  -nodetach           include the content (the default)\n"
               "  -outform PEM|DER    output format (default PEM)\n"
               "  -pass ARG           key passphrase: pass:TEXT, env:VAR, file:PATH or stdin\n"
               "                      (-passin is the same; without it an encrypted key is\n"
               "                      asked for on the terminal)\n"
               "  -provider NAME      load a provider (repeatable; default: the configuration)\n"
               "  -provider-path DIR  where -provider looks for modules\n"
               "  -propquery Q        property query for fetching algorithms\n"
               "  -help, --help       this text\n"
               "\n"
               "Exit status: 0 written, 1 failed, 2 usage error.\n",
               kProgram);
}

// ---- Errors ----

// Prints "klms-cms-sign: <message>" and OpenSSL's error queue (the provider's reasons included).
int fail(const std::string& message) {
  std::fprintf(stderr, "%s: %s\n", kProgram, message.c_str());
  ERR_print_errors_fp(stderr);
  return kExitFailed;
}

int usage_error(const std::string& message) {
  std::fprintf(stderr, "%s: %s\n", kProgram, message.c_str());
  std::fprintf(stderr, "%s: use -help for a summary\n", kProgram);
  return kExitUsage;
}

// ---- Arguments ----

// Returns kExitOk, kExitUsage, or -1 for "help printed".
int parse_arguments(int argc, char** argv, Options& o, std::string& error) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg.size() > 2 && arg.substr(0, 2) == "--") arg.remove_prefix(1);  // --in == -in
    auto value = [&](std::string& out) {
      if (i + 1 >= argc) {
        error = "option " + std::string(argv[i]) + " needs a value";
        return false;
      }
      out = argv[++i];
      return true;
    };
    std::string v;
    if (arg == "-help" || arg == "-h") return -1;
    if (arg == "-in") {
      if (!value(o.in)) return kExitUsage;
    } else if (arg == "-out") {
      if (!value(o.out)) return kExitUsage;
    } else if (arg == "-signer") {
      if (!value(o.signer)) return kExitUsage;
    } else if (arg == "-inkey") {
      if (!value(o.inkey)) return kExitUsage;
    } else if (arg == "-certfile") {
      if (!value(v)) return kExitUsage;
      o.certfiles.push_back(v);
    } else if (arg == "-detached") {
      o.detached = true;
    } else if (arg == "-nodetach") {
      o.detached = false;
    } else if (arg == "-outform") {
      if (!value(v)) return kExitUsage;
      if (v == "PEM" || v == "pem") {
        o.pem = true;
      } else if (v == "DER" || v == "der") {
        o.pem = false;
      } else {
        error = "-outform: '" + v + "' is not PEM or DER";
        return kExitUsage;
      }
    } else if (arg == "-pass" || arg == "-passin") {
      if (!value(v)) return kExitUsage;
      o.pass = v;
    } else if (arg == "-provider") {
      if (!value(v)) return kExitUsage;
      o.providers.push_back(v);
    } else if (arg == "-provider-path") {
      if (!value(o.provider_path)) return kExitUsage;
    } else if (arg == "-propquery") {
      if (!value(o.propquery)) return kExitUsage;
    } else {
      error = "unknown option '" + std::string(argv[i]) + "'";
      return kExitUsage;
    }
  }
  if (o.signer.empty()) {
    error = "-signer is required (the signer's certificate)";
    return kExitUsage;
  }
  return kExitOk;
}

// pass:TEXT, env:VAR, file:PATH (first line), stdin (first line).
bool read_passphrase(const std::string& spec, Secret& out, std::string& error) {
  auto first_line = [](std::FILE* f, Secret& s) {
    char buf[1024];
    if (std::fgets(buf, sizeof buf, f) == nullptr) {
      s.assign("");
    } else {
      std::size_t n = std::strcspn(buf, "\r\n");
      s.assign(std::string_view(buf, n));
    }
    OPENSSL_cleanse(buf, sizeof buf);
  };
  if (spec.rfind("pass:", 0) == 0) {
    out.assign(std::string_view(spec).substr(5));
  } else if (spec.rfind("env:", 0) == 0) {
    const char* v = std::getenv(spec.c_str() + 4);
    if (v == nullptr) {
      error = "-pass: environment variable " + spec.substr(4) + " is not set";
      return false;
    }
    out.assign(v);
  } else if (spec.rfind("file:", 0) == 0) {
    std::FILE* f = std::fopen(spec.c_str() + 5, "r");
    if (f == nullptr) {
      error = "-pass: cannot open " + spec.substr(5) + ": " + std::strerror(errno);
      return false;
    }
    first_line(f, out);
    std::fclose(f);
  } else if (spec == "stdin") {
    first_line(stdin, out);
  } else {
    error = "-pass: '" + spec + "' is not pass:TEXT, env:VAR, file:PATH or stdin";
    return false;
  }
  return true;
}

// ---- Inputs ----

BioPtr open_input(const std::string& path) {
  if (path.empty() || path == "-") return BioPtr(BIO_new_fp(stdin, BIO_NOCLOSE));
  return BioPtr(BIO_new_file(path.c_str(), "rb"));
}

std::string describe_errno(const std::string& path) { return path + ": " + std::strerror(errno); }

// One certificate, PEM or DER.
X509Ptr read_certificate(const std::string& path, std::string& error) {
  BioPtr bio(BIO_new_file(path.c_str(), "rb"));
  if (!bio) {
    error = "cannot open certificate " + describe_errno(path);
    return nullptr;
  }
  X509Ptr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (cert) return cert;
  ERR_clear_error();
  if (BIO_reset(bio.get()) != 0) {
    error = "cannot reread " + path;
    return nullptr;
  }
  cert.reset(d2i_X509_bio(bio.get(), nullptr));
  if (cert) return cert;
  error = "cannot read a certificate (PEM or DER) from " + path;
  return nullptr;
}

// Every PEM certificate of a file (at least one).
bool read_certificates(const std::string& path, STACK_OF(X509) * into, std::string& error) {
  BioPtr bio(BIO_new_file(path.c_str(), "rb"));
  if (!bio) {
    error = "cannot open certificate file " + describe_errno(path);
    return false;
  }
  int count = 0;
  for (;;) {
    X509Ptr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
    if (!cert) break;
    if (sk_X509_push(into, cert.get()) <= 0) {
      error = "out of memory";
      return false;
    }
    static_cast<void>(cert.release());  // owned by the stack now
    ++count;
  }
  const unsigned long last = ERR_peek_last_error();
  if (count > 0 && ERR_GET_LIB(last) == ERR_LIB_PEM && ERR_GET_REASON(last) == PEM_R_NO_START_LINE) ERR_clear_error();
  if (count == 0) {
    error = "no PEM certificate in " + path;
    return false;
  }
  return true;
}

// Bytes that are wiped when they go (key files).
class SecretBytes {
 public:
  SecretBytes() = default;
  SecretBytes(const SecretBytes&) = delete;
  SecretBytes& operator=(const SecretBytes&) = delete;
  ~SecretBytes() {
    if (!bytes_.empty()) OPENSSL_cleanse(bytes_.data(), bytes_.size());
  }
  std::vector<unsigned char>& get() noexcept { return bytes_; }

 private:
  std::vector<unsigned char> bytes_;
};

bool read_file(const std::string& path, std::vector<unsigned char>& out) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  unsigned char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.insert(out.end(), buf, buf + n);
  const bool ok = std::ferror(f) == 0 && out.size() <= (1u << 24);
  std::fclose(f);
  OPENSSL_cleanse(buf, sizeof buf);
  return ok;
}

// The DER of the first PEM block whose name ends in "PRIVATE KEY" ("PRIVATE KEY", "ENCRYPTED
// PRIVATE KEY"), so that a file holding the certificate and the key works; false when none.
bool pem_private_key_block(const std::vector<unsigned char>& file, std::vector<unsigned char>& der) {
  BioPtr mem(BIO_new_mem_buf(file.data(), static_cast<int>(file.size())));
  if (!mem) return false;
  bool found = false;
  for (;;) {
    char* name = nullptr;
    char* header = nullptr;
    unsigned char* data = nullptr;
    long len = 0;
    if (PEM_read_bio(mem.get(), &name, &header, &data, &len) != 1) break;
    const std::string_view n(name);
    found = n.size() >= 11 && n.substr(n.size() - 11) == "PRIVATE KEY";
    if (found) der.assign(data, data + len);
    OPENSSL_free(name);
    OPENSSL_free(header);
    OPENSSL_clear_free(data, static_cast<std::size_t>(len));
    if (found) break;
  }
  ERR_clear_error();  // the end of the PEM blocks is not an error
  return found;
}

// A private key: PKCS#8 or encrypted PKCS#8, PEM or DER. OSSL_DECODER is used directly rather than
// OSSL_STORE (which OpenSSL 3.0's apps use), so the provider's own reason for refusing a malformed
// or foreign key reaches the user.
PkeyPtr read_private_key(const std::string& path, const std::optional<std::string>& pass_spec,
                         const std::string& propq, std::string& error) {
  Secret pass;
  if (pass_spec && !read_passphrase(*pass_spec, pass, error)) return nullptr;
  SecretBytes file, block;
  if (!read_file(path, file.get())) {
    error = "cannot open private key " + describe_errno(path);
    return nullptr;
  }
  const bool pem = pem_private_key_block(file.get(), block.get());
  const std::vector<unsigned char>& input = pem ? block.get() : file.get();
  EVP_PKEY* raw = nullptr;
  DecoderPtr decoder(OSSL_DECODER_CTX_new_for_pkey(&raw, pem ? "DER" : nullptr, nullptr, nullptr, EVP_PKEY_KEYPAIR,
                                                   nullptr, propq.empty() ? nullptr : propq.c_str()));
  if (!decoder) {
    error = "cannot set up a key decoder";
    return nullptr;
  }
  const bool pass_ok =
      pass_spec ? OSSL_DECODER_CTX_set_passphrase(decoder.get(), reinterpret_cast<const unsigned char*>(pass.value().data()),
                                                  pass.value().size()) == 1
                : OSSL_DECODER_CTX_set_passphrase_ui(decoder.get(), UI_get_default_method(), nullptr) == 1;
  if (!pass_ok) {
    error = "cannot set up the passphrase";
    return nullptr;
  }
  const unsigned char* data = input.data();
  std::size_t left = input.size();
  if (OSSL_DECODER_from_data(decoder.get(), &data, &left) != 1 || raw == nullptr) {
    EVP_PKEY_free(raw);
    error = "cannot read a private key from " + path + (pass_spec ? " (wrong passphrase?)" : "");
    return nullptr;
  }
  return PkeyPtr(raw);
}

// SHAKE256 for the SHAKE parameter sets, SHA-256 for SHA-256, SHA-256/192 and the K-LMS sets
// (docs/design.md "Pure signing and digests": the digests the provider tolerates as CMS's digestAlgorithm).
std::string digest_for(EVP_PKEY* key) {
  char names[1024] = {0};
  std::size_t len = 0;
  if (EVP_PKEY_get_utf8_string_param(key, "lms", names, sizeof names, &len) != 1) return "SHA2-256";
  const std::string_view top = std::string_view(names, len).substr(0, std::string_view(names, len).find(','));
  return top.rfind("LMS_SHAKE_", 0) == 0 ? "SHAKE-256" : "SHA2-256";
}

// ---- Signing ----

int sign(const Options& o) {
  const char* propq = o.propquery.empty() ? nullptr : o.propquery.c_str();
  std::string error;

  X509Ptr cert = read_certificate(o.signer, error);
  if (!cert) return fail(error);
  PkeyPtr key = read_private_key(o.inkey.empty() ? o.signer : o.inkey, o.pass, o.propquery, error);
  if (!key) return fail(error);
  if (!EVP_PKEY_is_a(key.get(), "HSS-LMS")) {
    return fail(std::string("the key is ") + EVP_PKEY_get0_type_name(key.get()) +
                ", not HSS/LMS; use openssl cms -sign for other keys");
  }
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    return fail("the private key " + (o.inkey.empty() ? o.signer : o.inkey) + " does not belong to the certificate " +
                o.signer);
  }

  CertStackPtr extra(sk_X509_new_null());
  if (!extra) return fail("out of memory");
  for (const std::string& path : o.certfiles) {
    if (!read_certificates(path, extra.get(), error)) return fail(error);
  }

  const std::string md_name = digest_for(key.get());
  MdPtr md(EVP_MD_fetch(nullptr, md_name.c_str(), propq));
  if (!md) return fail("cannot fetch the digest " + md_name);

  BioPtr in = open_input(o.in);
  if (!in) return fail("cannot open content " + describe_errno(o.in));
  // The output is opened before signing, so that an unwritable path costs no one-time index.
  BioPtr out(o.out.empty() || o.out == "-" ? BIO_new_fp(stdout, BIO_NOCLOSE) : BIO_new_file(o.out.c_str(), "wb"));
  if (!out) return fail("cannot open output " + describe_errno(o.out));

  // CMS_BINARY: sign the bytes as they are. CMS_NOSMIMECAP: RFC 9708 asks for no capabilities.
  const unsigned int flags = CMS_PARTIAL | CMS_BINARY | CMS_NOSMIMECAP | (o.detached ? CMS_DETACHED : 0u);
  CmsPtr cms(CMS_sign_ex(nullptr, nullptr, extra.get(), nullptr, flags, nullptr, propq));
  if (!cms) return fail("cannot create the SignedData");
  CMS_SignerInfo* si = CMS_add1_signer(cms.get(), cert.get(), key.get(), md.get(), flags);
  if (si == nullptr) return fail("cannot add the signer");

  // What OpenSSL 3.0 leaves unset for provider keys: id-alg-hss-lms-hashsig, parameters absent.
  X509_ALGOR* signature_algorithm = nullptr;
  CMS_SignerInfo_get0_algs(si, nullptr, nullptr, nullptr, &signature_algorithm);
  ObjectPtr oid(OBJ_txt2obj(kHssOid, 1));
  if (signature_algorithm == nullptr || !oid) return fail("cannot set the signature algorithm");
  if (X509_ALGOR_set0(signature_algorithm, oid.get(), V_ASN1_UNDEF, nullptr) != 1) {
    return fail("cannot set the signature algorithm");
  }
  static_cast<void>(oid.release());  // owned by the AlgorithmIdentifier now

  if (CMS_final(cms.get(), in.get(), nullptr, flags) != 1) return fail("signing failed");
  const int written = o.pem ? PEM_write_bio_CMS(out.get(), cms.get()) : i2d_CMS_bio(out.get(), cms.get());
  if (written != 1 || BIO_flush(out.get()) != 1) {
    return fail("cannot write the SignedData to " + (o.out.empty() ? std::string("standard output") : o.out));
  }
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  std::string error;
  const int parsed = parse_arguments(argc, argv, options, error);
  if (parsed == -1) {
    usage(stdout);
    return kExitOk;
  }
  if (parsed != kExitOk) return usage_error(error);

  // Loads the configuration (OPENSSL_CONF) first, as the openssl command does.
  if (OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG, nullptr) != 1) return fail("cannot load the OpenSSL configuration");
  if (!options.provider_path.empty() && OSSL_PROVIDER_set_default_search_path(nullptr, options.provider_path.c_str()) != 1) {
    return fail("cannot set the provider path " + options.provider_path);
  }
  // Providers outlive every object made with them: they are unloaded when main returns.
  std::vector<ProviderPtr> providers;
  for (const std::string& name : options.providers) {
    ProviderPtr p(OSSL_PROVIDER_load(nullptr, name.c_str()));
    if (!p) return fail("cannot load provider " + name);
    providers.push_back(std::move(p));
  }
  return sign(options);
}
