// klms-raw: raw public keys and signatures for other tools (klms-raw(1)).
//
//   klms-raw spki [--scheme hss] [--der] RAW-PUBLIC-KEY [OUT]   raw key -> SubjectPublicKeyInfo (PEM, or DER)
//   klms-raw raw SPKI [OUT]                                     SubjectPublicKeyInfo (PEM or DER) -> raw key
//   klms-raw sig-index [--scheme hss] SIGNATURE                 every level's q and the key's index
//
// OUT omitted or "-": standard output. The scheme comes from --scheme (default hss) or, for `raw`,
// from the key's OID (tools/raw_schemes.h). Only libcrypto's ASN.1 codec: no provider is loaded.
// Exit status: 0 done, 1 refused or failed, 2 usage.
#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tools/raw_schemes.h"

namespace {

using klms::tools::RawScheme;

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

struct BioFree {
  void operator()(BIO* b) const noexcept { BIO_free(b); }
};
struct PubkeyFree {
  void operator()(X509_PUBKEY* p) const noexcept { X509_PUBKEY_free(p); }
};
struct ObjectFree {
  void operator()(ASN1_OBJECT* o) const noexcept { ASN1_OBJECT_free(o); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;
using PubkeyPtr = std::unique_ptr<X509_PUBKEY, PubkeyFree>;
using ObjectPtr = std::unique_ptr<ASN1_OBJECT, ObjectFree>;

int usage() {
  std::cerr << "usage: klms-raw spki [--scheme S] [--der] RAW-PUBLIC-KEY [OUT]\n"
               "       klms-raw raw SPKI [OUT]\n"
               "       klms-raw sig-index [--scheme S] SIGNATURE\n"
               "spki       a raw public key (RFC 8554 §6.1 u32 L || the top LMS key) as the\n"
               "           SubjectPublicKeyInfo openssl reads: PEM, or DER with --der\n"
               "raw        the raw public key inside a SubjectPublicKeyInfo (PEM or DER)\n"
               "sig-index  the leaf q a signature used at every level, and the key's index\n"
               "OUT        a file, or - (the default) for standard output\n"
               "schemes:";
  for (const RawScheme& s : klms::tools::raw_schemes()) std::cerr << " " << s.name << " (" << s.title << ")";
  std::cerr << "\n";
  return kExitUsage;
}

int fail(const std::string& what) {
  std::cerr << "klms-raw: " << what << "\n";
  return kExitFailed;
}

// "-": standard input.
bool read_file(const std::string& path, std::vector<std::uint8_t>& out) {
  if (path == "-") {
    out.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    return !std::cin.bad();
  }
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  out.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return !f.bad();
}

bool write_output(const std::string& path, const std::uint8_t* data, std::size_t len) {
  if (path.empty() || path == "-") {
    std::cout.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(len));
    std::cout.flush();
    return static_cast<bool>(std::cout);
  }
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(len));
  f.close();
  return static_cast<bool>(f);
}

// What libcrypto said, for a refusal.
std::string openssl_reason() {
  const unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return "no reason given";
  char text[256];
  ERR_error_string_n(e, text, sizeof text);
  return text;
}

int to_spki(const RawScheme& scheme, bool der, const std::string& in, const std::string& out) {
  std::vector<std::uint8_t> raw;
  if (!read_file(in, raw)) return fail("cannot read " + in);
  std::string summary;
  if (const klms::Error e = scheme.check_public_key(klms::ByteView(raw.data(), raw.size()), summary);
      e != klms::Error::kOk) {
    return fail(in + ": not a raw " + std::string(scheme.name) + " public key: " + klms::describe(e));
  }
  PubkeyPtr pub(X509_PUBKEY_new());
  ObjectPtr oid(OBJ_txt2obj(scheme.oid, 1));
  auto* copy = static_cast<unsigned char*>(OPENSSL_memdup(raw.data(), raw.size()));
  if (!pub || !oid || copy == nullptr) {
    OPENSSL_free(copy);
    return fail("out of memory");
  }
  // RFC 9708 §4: parameters absent; the BIT STRING holds the raw key. set0 takes oid and copy.
  if (X509_PUBKEY_set0_param(pub.get(), oid.get(), V_ASN1_UNDEF, nullptr, copy, static_cast<int>(raw.size())) != 1) {
    OPENSSL_free(copy);
    return fail("cannot make the SubjectPublicKeyInfo: " + openssl_reason());
  }
  (void)oid.release();
  BioPtr mem(BIO_new(BIO_s_mem()));
  if (!mem) return fail("out of memory");
  const int written = der ? i2d_X509_PUBKEY_bio(mem.get(), pub.get()) : PEM_write_bio_X509_PUBKEY(mem.get(), pub.get());
  if (written != 1) return fail("cannot encode the SubjectPublicKeyInfo: " + openssl_reason());
  char* data = nullptr;
  const long len = BIO_get_mem_data(mem.get(), &data);
  if (!write_output(out, reinterpret_cast<const std::uint8_t*>(data), static_cast<std::size_t>(len))) {
    return fail("cannot write " + out);
  }
  std::cerr << "klms-raw: " << summary << "\n";
  return kExitOk;
}

int to_raw(const std::string& in, const std::string& out) {
  std::vector<std::uint8_t> bytes;
  if (!read_file(in, bytes)) return fail("cannot read " + in);
  BioPtr bio(BIO_new_mem_buf(bytes.data(), static_cast<int>(bytes.size())));
  if (!bio) return fail("out of memory");
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  // libcrypto's parser may try its own decoders for the key inside: their misses are not ours.
  ERR_set_mark();
  PubkeyPtr pub(text.find("-----BEGIN ") != std::string_view::npos
                    ? PEM_read_bio_X509_PUBKEY(bio.get(), nullptr, nullptr, nullptr)
                    : d2i_X509_PUBKEY_bio(bio.get(), nullptr));
  if (!pub) return fail(in + ": not a SubjectPublicKeyInfo (PEM \"PUBLIC KEY\" or DER): " + openssl_reason());
  ERR_pop_to_mark();
  ASN1_OBJECT* oid = nullptr;
  const unsigned char* key = nullptr;
  int key_len = 0;
  X509_ALGOR* alg = nullptr;
  if (X509_PUBKEY_get0_param(&oid, &key, &key_len, &alg, pub.get()) != 1) return fail(in + ": " + openssl_reason());
  char dotted[128];
  OBJ_obj2txt(dotted, sizeof dotted, oid, 1);
  const RawScheme* scheme = nullptr;
  for (const RawScheme& s : klms::tools::raw_schemes()) {
    if (std::string_view(dotted) == s.oid) scheme = &s;
  }
  if (scheme == nullptr) return fail(in + ": the key's algorithm " + dotted + " is not one klms-raw knows");
  const ASN1_OBJECT* unused = nullptr;
  int parameter_type = V_ASN1_UNDEF;
  X509_ALGOR_get0(&unused, &parameter_type, nullptr, alg);
  if (parameter_type != V_ASN1_UNDEF) return fail(in + ": the AlgorithmIdentifier has parameters (RFC 9708: absent)");
  std::string summary;
  const klms::ByteView raw(key, static_cast<std::size_t>(key_len));
  if (const klms::Error e = scheme->check_public_key(raw, summary); e != klms::Error::kOk) {
    return fail(in + ": the key inside is not a " + std::string(scheme->name) + " public key: " + klms::describe(e));
  }
  if (!write_output(out, key, static_cast<std::size_t>(key_len))) return fail("cannot write " + out);
  std::cerr << "klms-raw: " << summary << "\n";
  return kExitOk;
}

int sig_index(const RawScheme& scheme, const std::string& in) {
  std::vector<std::uint8_t> sig;
  if (!read_file(in, sig)) return fail("cannot read " + in);
  auto text = scheme.describe_signature(klms::ByteView(sig.data(), sig.size()));
  if (!text) return fail(in + ": not a " + std::string(scheme.name) + " signature: " + klms::describe(text.error()));
  std::cout << *text;
  return kExitOk;
}

int run(int argc, char** argv) {
  if (argc < 2) return usage();
  const std::string_view command = argv[1];
  if (command == "--help" || command == "-h" || command == "help") {
    usage();
    return kExitOk;
  }
  const RawScheme* scheme = klms::tools::find_raw_scheme("hss");
  bool der = false;
  std::vector<std::string> paths;
  for (int i = 2; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--scheme" && i + 1 < argc) {
      scheme = klms::tools::find_raw_scheme(argv[++i]);
      if (scheme == nullptr) return usage();
    } else if (arg == "--der") {
      der = true;
    } else if (arg == "-" || (!arg.empty() && arg[0] != '-')) {
      paths.emplace_back(arg);
    } else {
      return usage();
    }
  }
  if (command == "spki" && (paths.size() == 1 || paths.size() == 2)) {
    return to_spki(*scheme, der, paths[0], paths.size() == 2 ? paths[1] : "-");
  }
  if (command == "raw" && !der && (paths.size() == 1 || paths.size() == 2)) {
    return to_raw(paths[0], paths.size() == 2 ? paths[1] : "-");
  }
  if (command == "sig-index" && !der && paths.size() == 1) return sig_index(*scheme, paths[0]);
  return usage();
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (...) {
    std::cerr << "klms-raw: out of memory\n";
    return kExitFailed;
  }
}
