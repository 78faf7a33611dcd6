// klms-msg-stream: streaming sign and verify of a file through EVP, for the message-API recipe
// (test/recipes/message_api.t) and the peak-memory measurement (docs/openssl-versions.md "OpenSSL versions").
//   klms-msg-stream has-message-api                 exit 0 when built against OpenSSL 3.4+ headers
//   klms-msg-stream verify message|digest PUB SIG FILE
//       message: EVP_PKEY_verify_message_init, the signature set first (EVP_PKEY_CTX_set_signature),
//                then the file in 64 KiB updates and EVP_PKEY_verify_message_final (3.4+);
//       digest:  EVP_DigestVerifyInit/Update/Final (every version; the signature comes last).
//   klms-msg-stream sign message|digest KEY FILE OUT   (message: EVP_PKEY_sign_message_*, 3.4+)
// Prints "verified" / "verification failed" / "signed" on stdout and "maxrss_kb=N" (getrusage) on
// stderr; exit 0 verified or signed, 1 not verified or an EVP error (printed), 2 usage or I/O.
// Loads the provider from OPENSSL_CONF like any application.
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/opensslv.h>
#include <openssl/pem.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#if OPENSSL_VERSION_NUMBER >= 0x30400000L
#define HAVE_MESSAGE_API 1
#else
#define HAVE_MESSAGE_API 0
#endif

namespace {

struct FileCloser { void operator()(FILE* f) const { if (f) std::fclose(f); } };
using File = std::unique_ptr<FILE, FileCloser>;
struct PkeyFree { void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); } };
struct PctxFree { void operator()(EVP_PKEY_CTX* c) const { EVP_PKEY_CTX_free(c); } };
struct MdctxFree { void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); } };
#if HAVE_MESSAGE_API
struct SigFree { void operator()(EVP_SIGNATURE* s) const { EVP_SIGNATURE_free(s); } };
#endif

void report_rss() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::fprintf(stderr, "maxrss_kb=%ld\n", ru.ru_maxrss);
}

int evp_error(const char* what) {
  std::fprintf(stderr, "klms-msg-stream: %s failed\n", what);
  ERR_print_errors_fp(stderr);
  report_rss();
  return 1;
}

bool read_all(const char* path, std::vector<unsigned char>& out) {
  File f(std::fopen(path, "rb"));
  if (!f) return false;
  unsigned char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f.get())) > 0) out.insert(out.end(), buf, buf + n);
  return !std::ferror(f.get());
}

EVP_PKEY* load_key(const char* path, bool is_public) {
  File f(std::fopen(path, "rb"));
  if (!f) return nullptr;
  return is_public ? PEM_read_PUBKEY(f.get(), nullptr, nullptr, nullptr)
                   : PEM_read_PrivateKey(f.get(), nullptr, nullptr, nullptr);
}

// Calls feed(chunk, len) for each 64 KiB of the file; false on a read error or a failed feed.
template <typename Feed>
bool stream_file(const char* path, Feed feed, bool& io_error) {
  File f(std::fopen(path, "rb"));
  io_error = !f;
  if (!f) return false;
  std::vector<unsigned char> buf(65536);
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), f.get())) > 0) {
    if (!feed(buf.data(), n)) return false;
  }
  io_error = std::ferror(f.get()) != 0;
  return !io_error;
}

int usage() {
  std::fprintf(stderr,
               "usage: klms-msg-stream has-message-api\n"
               "       klms-msg-stream verify message|digest PUB.pem SIG FILE\n"
               "       klms-msg-stream sign message|digest KEY.pem FILE OUT\n");
  return 2;
}

int verify(bool message_api, const char* pub_path, const char* sig_path, const char* file) {
  std::unique_ptr<EVP_PKEY, PkeyFree> pub(load_key(pub_path, true));
  if (!pub) return evp_error("loading the public key");
  std::vector<unsigned char> sig;
  if (!read_all(sig_path, sig)) { std::fprintf(stderr, "klms-msg-stream: cannot read %s\n", sig_path); return 2; }
  bool io_error = false;
  int ok = 0;
  if (message_api) {
#if HAVE_MESSAGE_API
    std::unique_ptr<EVP_SIGNATURE, SigFree> alg(EVP_SIGNATURE_fetch(nullptr, "HSS-LMS", nullptr));
    if (!alg) return evp_error("EVP_SIGNATURE_fetch(HSS-LMS)");
    std::unique_ptr<EVP_PKEY_CTX, PctxFree> ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, pub.get(), nullptr));
    if (!ctx || EVP_PKEY_verify_message_init(ctx.get(), alg.get(), nullptr) != 1) return evp_error("EVP_PKEY_verify_message_init");
    if (EVP_PKEY_CTX_set_signature(ctx.get(), sig.data(), sig.size()) != 1) return evp_error("EVP_PKEY_CTX_set_signature");
    if (!stream_file(file, [&](const unsigned char* d, size_t n) { return EVP_PKEY_verify_message_update(ctx.get(), d, n) == 1; },
                     io_error)) {
      if (io_error) { std::fprintf(stderr, "klms-msg-stream: cannot read %s\n", file); return 2; }
      return evp_error("EVP_PKEY_verify_message_update");
    }
    ok = EVP_PKEY_verify_message_final(ctx.get());
#else
    std::fprintf(stderr, "klms-msg-stream: built without the message API (OpenSSL < 3.4)\n");
    return 2;
#endif
  } else {
    std::unique_ptr<EVP_MD_CTX, MdctxFree> md(EVP_MD_CTX_new());
    if (!md || EVP_DigestVerifyInit_ex(md.get(), nullptr, nullptr, nullptr, nullptr, pub.get(), nullptr) != 1) {
      return evp_error("EVP_DigestVerifyInit_ex");
    }
    if (!stream_file(file, [&](const unsigned char* d, size_t n) { return EVP_DigestVerifyUpdate(md.get(), d, n) == 1; },
                     io_error)) {
      if (io_error) { std::fprintf(stderr, "klms-msg-stream: cannot read %s\n", file); return 2; }
      return evp_error("EVP_DigestVerifyUpdate");
    }
    ok = EVP_DigestVerifyFinal(md.get(), sig.data(), sig.size());
  }
  if (ok == 1) {
    std::puts("verified");
    report_rss();
    return 0;
  }
  std::puts("verification failed");
  ERR_print_errors_fp(stderr);
  report_rss();
  return 1;
}

int sign(bool message_api, const char* key_path, const char* file, const char* out_path) {
  std::unique_ptr<EVP_PKEY, PkeyFree> key(load_key(key_path, false));
  if (!key) return evp_error("loading the private key");
  std::vector<unsigned char> sig;
  size_t siglen = 0;
  bool io_error = false;
  if (message_api) {
#if HAVE_MESSAGE_API
    std::unique_ptr<EVP_SIGNATURE, SigFree> alg(EVP_SIGNATURE_fetch(nullptr, "HSS-LMS", nullptr));
    if (!alg) return evp_error("EVP_SIGNATURE_fetch(HSS-LMS)");
    std::unique_ptr<EVP_PKEY_CTX, PctxFree> ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, key.get(), nullptr));
    if (!ctx || EVP_PKEY_sign_message_init(ctx.get(), alg.get(), nullptr) != 1) return evp_error("EVP_PKEY_sign_message_init");
    if (!stream_file(file, [&](const unsigned char* d, size_t n) { return EVP_PKEY_sign_message_update(ctx.get(), d, n) == 1; },
                     io_error)) {
      if (io_error) { std::fprintf(stderr, "klms-msg-stream: cannot read %s\n", file); return 2; }
      return evp_error("EVP_PKEY_sign_message_update");
    }
    if (EVP_PKEY_sign_message_final(ctx.get(), nullptr, &siglen) != 1) return evp_error("EVP_PKEY_sign_message_final (size)");
    sig.resize(siglen);
    if (EVP_PKEY_sign_message_final(ctx.get(), sig.data(), &siglen) != 1) return evp_error("EVP_PKEY_sign_message_final");
#else
    std::fprintf(stderr, "klms-msg-stream: built without the message API (OpenSSL < 3.4)\n");
    return 2;
#endif
  } else {
    std::unique_ptr<EVP_MD_CTX, MdctxFree> md(EVP_MD_CTX_new());
    if (!md || EVP_DigestSignInit_ex(md.get(), nullptr, nullptr, nullptr, nullptr, key.get(), nullptr) != 1) {
      return evp_error("EVP_DigestSignInit_ex");
    }
    if (!stream_file(file, [&](const unsigned char* d, size_t n) { return EVP_DigestSignUpdate(md.get(), d, n) == 1; },
                     io_error)) {
      if (io_error) { std::fprintf(stderr, "klms-msg-stream: cannot read %s\n", file); return 2; }
      return evp_error("EVP_DigestSignUpdate");
    }
    if (EVP_DigestSignFinal(md.get(), nullptr, &siglen) != 1) return evp_error("EVP_DigestSignFinal (size)");
    sig.resize(siglen);
    if (EVP_DigestSignFinal(md.get(), sig.data(), &siglen) != 1) return evp_error("EVP_DigestSignFinal");
  }
  File out(std::fopen(out_path, "wb"));
  if (!out || std::fwrite(sig.data(), 1, siglen, out.get()) != siglen || std::fflush(out.get()) != 0) {
    std::fprintf(stderr, "klms-msg-stream: cannot write %s\n", out_path);
    return 2;
  }
  std::puts("signed");
  report_rss();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "has-message-api") == 0) return HAVE_MESSAGE_API ? 0 : 1;
  if (argc != 6) return usage();
  const std::string op = argv[1], api = argv[2];
  if (api != "message" && api != "digest") return usage();
  if (op == "verify") return verify(api == "message", argv[3], argv[4], argv[5]);
  if (op == "sign") return sign(api == "message", argv[3], argv[4], argv[5]);
  return usage();
}
