// klms-evp-signer: signs a message N times through EVP with the klms provider, the way an
// application would, for the process-level state tests (test/recipes/state_*.t).
//
//   klms-evp-signer --key KEY.pem [options]
//     --in FILE           the message (default: the text "klms-evp-signer message")
//     --message TEXT      the message as text
//     --count N           signatures per thread (default 1; 0 = until an error or a signal)
//     --threads T         T threads signing at once with the one EVP_PKEY (default 1)
//     --decode-per-thread each thread decodes the key file itself (several key objects)
//     --reserve R         the `reserve` signature context parameter (indices per durable write)
//     --state-file P      the `state-file` signature context parameter
//     --streaming         EVP_DigestSignUpdate in chunks, then EVP_DigestSignFinal
//     --chunk B           chunk size for --streaming (default 7)
//     --out-dir D         write each signature to D/sig-<pid>-<thread>-<i>.bin (atomically)
//     --unique-messages   sign the message followed by " |pid <pid> thread <t> sig <i>", a message
//                         of its own for every signature (the reuse ledger, test/support/Ledger.pm,
//                         tells two messages apart); with --out-dir each one is written to
//                         D/msg-<pid>-<thread>-<i>.bin before its signature
//     --print-q           print each signature's global index q on stdout (one write(2) per line,
//                         right after EVP_DigestSign returned, before anything else is done)
//     --print-levels      with --print-q: "q q_1,q_2,..." (the per-level q's) instead of "q"
//     --verify            verify every signature in-process as well
//     --keep-going        on a failed signature print "fail <thread> <i>" on stdout and go on
//     --delay-us U        sleep a random 0..U microseconds before each signature
//     --pause-us U        sleep exactly U microseconds before each signature after the first
//     --no-config         load the providers with OSSL_PROVIDER_load instead of $OPENSSL_CONF
//     --pass PASS         passphrase of an encrypted key
//     --remaining         after signing, print "remaining N": the `remaining-signatures` parameter
//                         of a signing context (with --state-file, of that file, e.g. a lease)
//     --remaining-only    print "remaining N" and sign nothing
//
// Exit status: 0 when every signature was made, 1 when any failed (the OpenSSL error queue is
// printed on stderr), 2 on a usage error.
#include <fcntl.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "test/evp/evp_util.h"

namespace {

using namespace klms::evptest;

struct Options {
  std::string key_path;
  std::vector<unsigned char> message;
  std::uint64_t count = 1;
  unsigned threads = 1;
  bool decode_per_thread = false;
  std::uint64_t reserve = 0;
  bool reserve_set = false;  // --reserve 0 is passed on: the provider must refuse it
  std::string state_file;
  bool streaming = false;
  std::size_t chunk = 7;
  std::string out_dir;
  bool print_q = false;
  bool print_levels = false;
  bool verify = false;
  bool keep_going = false;
  bool unique_messages = false;
  unsigned delay_us = 0;
  unsigned pause_us = 0;
  bool use_config = true;
  std::string pass;
  bool remaining = false;
  bool remaining_only = false;
};

OSSL_LIB_CTX* g_libctx = nullptr;
std::atomic<bool> g_failed{false};
std::mutex g_stderr_mutex;

void write_all(int fd, const std::string& text) {
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

void report_failure(const std::string& what) {
  std::lock_guard<std::mutex> lock(g_stderr_mutex);
  // The error queue is per thread: this thread's errors.
  write_all(STDERR_FILENO, "klms-evp-signer: " + what + "\n" + error_text());
  g_failed.store(true);
}

bool write_file_atomically(const std::string& path, const unsigned char* data, std::size_t len) {
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  std::size_t done = 0;
  while (done < len) {
    const ssize_t n = ::write(fd, data + done, len - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) return false;
  return ::rename(tmp.c_str(), path.c_str()) == 0;
}

// One signature; false on failure (errors left on this thread's queue).
bool sign_once(const Options& o, const std::vector<unsigned char>& message, EVP_PKEY* pkey, std::vector<unsigned char>& sig) {
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  if (md == nullptr) return false;
  OSSL_PARAM params[3];
  std::size_t n = 0;
  std::uint64_t reserve = o.reserve;
  if (o.reserve_set) params[n++] = OSSL_PARAM_construct_uint64("reserve", &reserve);
  if (!o.state_file.empty()) {
    params[n++] = OSSL_PARAM_construct_utf8_string("state-file", const_cast<char*>(o.state_file.c_str()), 0);
  }
  params[n] = OSSL_PARAM_construct_end();
  bool ok = EVP_DigestSignInit_ex(md, nullptr, nullptr, g_libctx, nullptr, pkey, params) == 1;
  std::size_t len = 0;
  if (ok && o.streaming) {
    const std::size_t chunk = o.chunk == 0 ? 1 : o.chunk;
    for (std::size_t off = 0; ok && off < message.size(); off += chunk) {
      const std::size_t take = std::min(chunk, message.size() - off);
      ok = EVP_DigestSignUpdate(md, message.data() + off, take) == 1;
    }
    ok = ok && EVP_DigestSignFinal(md, nullptr, &len) == 1;  // the size query reserves nothing
    if (ok) {
      sig.resize(len);
      ok = EVP_DigestSignFinal(md, sig.data(), &len) == 1;
    }
  } else if (ok) {
    ok = EVP_DigestSign(md, nullptr, &len, message.data(), message.size()) == 1;
    if (ok) {
      sig.resize(len);
      ok = EVP_DigestSign(md, sig.data(), &len, message.data(), message.size()) == 1;
    }
  }
  EVP_MD_CTX_free(md);
  if (ok) sig.resize(len);
  return ok;
}

bool verify_once(const std::vector<unsigned char>& message, EVP_PKEY* pkey, const std::vector<unsigned char>& sig) {
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  if (md == nullptr) return false;
  const bool ok = EVP_DigestVerifyInit_ex(md, nullptr, nullptr, g_libctx, nullptr, pkey, nullptr) == 1 &&
                  EVP_DigestVerify(md, sig.data(), sig.size(), message.data(), message.size()) == 1;
  EVP_MD_CTX_free(md);
  return ok;
}

void run_thread(const Options& o, EVP_PKEY* shared_key, unsigned thread) {
  EVP_PKEY* pkey = shared_key;
  if (o.decode_per_thread) {
    pkey = read_private_key(g_libctx, o.key_path, o.pass.empty() ? nullptr : o.pass.c_str());
    if (pkey == nullptr) {
      report_failure("thread " + std::to_string(thread) + ": cannot read " + o.key_path);
      return;
    }
  }
  const std::vector<LevelShape> shape = key_shape(pkey);
  std::mt19937_64 rng(static_cast<std::uint64_t>(::getpid()) * 1000003u + thread);
  std::vector<unsigned char> sig;
  for (std::uint64_t i = 0; o.count == 0 || i < o.count; ++i) {
    if (o.delay_us != 0) ::usleep(static_cast<useconds_t>(rng() % (o.delay_us + 1)));
    if (o.pause_us != 0 && i != 0) ::usleep(static_cast<useconds_t>(o.pause_us));
    const std::string name = std::to_string(::getpid()) + "-" + std::to_string(thread) + "-" + std::to_string(i);
    std::vector<unsigned char> unique;
    if (o.unique_messages) {
      const std::string tail = " |pid " + std::to_string(::getpid()) + " thread " + std::to_string(thread) + " sig " +
                               std::to_string(i);
      unique = o.message;
      unique.insert(unique.end(), tail.begin(), tail.end());
      if (!o.out_dir.empty()) {
        const std::string path = o.out_dir + "/msg-" + name + ".bin";
        if (!write_file_atomically(path, unique.data(), unique.size())) {
          report_failure("cannot write " + path + ": " + std::strerror(errno));
          break;
        }
      }
    }
    const std::vector<unsigned char>& message = o.unique_messages ? unique : o.message;
    if (!sign_once(o, message, pkey, sig)) {
      report_failure("thread " + std::to_string(thread) + ": signature " + std::to_string(i) + " failed");
      if (o.keep_going) {
        write_all(STDOUT_FILENO, "fail " + std::to_string(thread) + " " + std::to_string(i) + "\n");
        continue;
      }
      break;
    }
    if (o.print_q) {
      std::uint64_t q = 0;
      std::vector<std::uint32_t> per_level;
      if (!signature_index(shape, sig.data(), sig.size(), q, &per_level)) {
        report_failure("signature of unexpected shape (" + std::to_string(sig.size()) + " bytes)");
        break;
      }
      std::string line = std::to_string(q);
      if (o.print_levels) {
        line += " ";
        for (std::size_t l = 0; l < per_level.size(); ++l) line += (l ? "," : "") + std::to_string(per_level[l]);
      }
      write_all(STDOUT_FILENO, line + "\n");
    }
    if (!o.out_dir.empty()) {
      const std::string path = o.out_dir + "/sig-" + name + ".bin";
      if (!write_file_atomically(path, sig.data(), sig.size())) {
        report_failure("cannot write " + path + ": " + std::strerror(errno));
        break;
      }
    }
    if (o.verify && !verify_once(message, pkey, sig)) {
      report_failure("thread " + std::to_string(thread) + ": signature " + std::to_string(i) + " does not verify");
      break;
    }
  }
  if (pkey != shared_key) EVP_PKEY_free(pkey);
}

// The `remaining-signatures` signature context parameter; false (errors queued) when refused.
bool print_remaining(const Options& o, EVP_PKEY* pkey) {
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_pkey(g_libctx, pkey, nullptr);
  if (ctx == nullptr) return false;
  OSSL_PARAM init[2];
  init[0] = OSSL_PARAM_construct_utf8_string("state-file", const_cast<char*>(o.state_file.c_str()), 0);
  init[1] = OSSL_PARAM_construct_end();
  std::uint64_t remaining = 0;
  OSSL_PARAM get[2];
  get[0] = OSSL_PARAM_construct_uint64("remaining-signatures", &remaining);
  get[1] = OSSL_PARAM_construct_end();
  const bool ok = EVP_PKEY_sign_init_ex(ctx, o.state_file.empty() ? nullptr : init) == 1 &&
                  EVP_PKEY_CTX_get_params(ctx, get) == 1 && OSSL_PARAM_modified(&get[0]);
  EVP_PKEY_CTX_free(ctx);
  if (ok) write_all(STDOUT_FILENO, "remaining " + std::to_string(remaining) + "\n");
  return ok;
}

int usage() {
  std::fprintf(stderr,
               "usage: klms-evp-signer --key KEY.pem [--in FILE | --message TEXT] [--count N] [--threads T]\n"
               "         [--decode-per-thread] [--reserve R] [--state-file P] [--streaming [--chunk B]]\n"
               "         [--out-dir D] [--unique-messages] [--print-q [--print-levels]] [--verify] [--keep-going]\n"
               "         [--delay-us U] [--pause-us U]\n"
               "         [--no-config] [--pass PASS] [--remaining | --remaining-only]\n");
  return 2;
}

bool parse_u64(const char* s, std::uint64_t& out) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0' || *s == '-') return false;
  out = v;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  const std::string default_message = "klms-evp-signer message";
  o.message.assign(default_message.begin(), default_message.end());
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    std::uint64_t v = 0;
    if (a == "--key" && has_value) {
      o.key_path = argv[++i];
    } else if (a == "--in" && has_value) {
      std::ifstream in(argv[++i], std::ios::binary);
      if (!in) {
        std::fprintf(stderr, "klms-evp-signer: cannot read %s\n", argv[i]);
        return 2;
      }
      o.message.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    } else if (a == "--message" && has_value) {
      const std::string m = argv[++i];
      o.message.assign(m.begin(), m.end());
    } else if (a == "--count" && has_value && parse_u64(argv[i + 1], v)) {
      o.count = v;
      ++i;
    } else if (a == "--threads" && has_value && parse_u64(argv[i + 1], v) && v >= 1 && v <= 256) {
      o.threads = static_cast<unsigned>(v);
      ++i;
    } else if (a == "--decode-per-thread") {
      o.decode_per_thread = true;
    } else if (a == "--reserve" && has_value && parse_u64(argv[i + 1], v)) {
      o.reserve = v;
      o.reserve_set = true;
      ++i;
    } else if (a == "--state-file" && has_value) {
      o.state_file = argv[++i];
    } else if (a == "--streaming") {
      o.streaming = true;
    } else if (a == "--chunk" && has_value && parse_u64(argv[i + 1], v) && v >= 1) {
      o.chunk = static_cast<std::size_t>(v);
      ++i;
    } else if (a == "--out-dir" && has_value) {
      o.out_dir = argv[++i];
    } else if (a == "--print-q") {
      o.print_q = true;
    } else if (a == "--print-levels") {
      o.print_levels = true;
    } else if (a == "--verify") {
      o.verify = true;
    } else if (a == "--keep-going") {
      o.keep_going = true;
    } else if (a == "--unique-messages") {
      o.unique_messages = true;
    } else if (a == "--delay-us" && has_value && parse_u64(argv[i + 1], v) && v <= 10000000) {
      o.delay_us = static_cast<unsigned>(v);
      ++i;
    } else if (a == "--pause-us" && has_value && parse_u64(argv[i + 1], v) && v <= 10000000) {
      o.pause_us = static_cast<unsigned>(v);
      ++i;
    } else if (a == "--no-config") {
      o.use_config = false;
    } else if (a == "--remaining") {
      o.remaining = true;
    } else if (a == "--remaining-only") {
      o.remaining = o.remaining_only = true;
    } else if (a == "--pass" && has_value) {
      o.pass = argv[++i];
    } else {
      return usage();
    }
  }
  if (o.key_path.empty()) return usage();

  g_libctx = load_library_context(o.use_config);
  if (g_libctx == nullptr) {
    report_failure("cannot load the klms provider");
    return 1;
  }
  EVP_PKEY* pkey = read_private_key(g_libctx, o.key_path, o.pass.empty() ? nullptr : o.pass.c_str());
  if (pkey == nullptr) {
    report_failure("cannot read the private key " + o.key_path);
    OSSL_LIB_CTX_free(g_libctx);
    return 1;
  }
  if (o.remaining_only) {
    // nothing to sign
  } else if (o.threads == 1) {
    run_thread(o, pkey, 0);
  } else {
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < o.threads; ++t) threads.emplace_back(run_thread, std::cref(o), pkey, t);
    for (std::thread& t : threads) t.join();
  }
  if (o.remaining && !print_remaining(o, pkey)) report_failure("remaining-signatures refused");
  EVP_PKEY_free(pkey);
  OSSL_LIB_CTX_free(g_libctx);
  return g_failed.load() ? 1 : 0;
}
