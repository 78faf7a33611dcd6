// Botan 3's HSS-LMS (module hss_lms, RFC 8554) driven from the command line: the independent
// implementation that the opt-in baseline (bench/baseline/botan-baseline.sh) compares the provider with,
// and the other side of its interoperability check. Built by that script against the Botan it
// builds, never by the project's CMake (the project does not depend on Botan).
//
//   klms-botan-hss-lms version
//   klms-botan-hss-lms keygen PARAMS PRIV PUB     one key, e.g. PARAMS "SHA-256,HW(15,4)"; PRIV gets
//                                                 Botan's private key bytes, PUB the raw HSS public
//                                                 key u32(L) || LMS public key (RFC 8554 section 6.1)
//   klms-botan-hss-lms sign PRIV MSG SIG          one signature (raw HSS bytes); PRIV is rewritten
//                                                 with the advanced index before SIG is written
//   klms-botan-hss-lms verify PUB MSG SIG         exit 0: valid, 1: invalid, 2: error
//   klms-botan-hss-lms bench PARAMS MSG [REPS]    in-process medians (wall and CPU ms) of REPS key
//                                                 generations, signatures of MSG and verifications
//
// Times: wall on the steady clock, CPU of the whole process (CLOCK_PROCESS_CPUTIME_ID).
#include <botan/hss_lms.h>
#include <botan/pubkey.h>
#include <botan/system_rng.h>
#include <botan/version.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <fstream>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

std::vector<std::uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw std::runtime_error("cannot open " + path);
  const std::streamoff size = in.tellg();
  if (size < 0) throw std::runtime_error("cannot size " + path);
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size));
  in.seekg(0);
  in.read(reinterpret_cast<char*>(bytes.data()), size);
  if (!in) throw std::runtime_error("cannot read " + path);
  return bytes;
}

void write_file(const std::string& path, std::span<const std::uint8_t> bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path);
}

// The byte-span constructors are deprecated in later 3.x releases (which add ones taking an
// AlgorithmIdentifier) but exist in every release with hss_lms (3.5+), so one source serves all.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
std::unique_ptr<Botan::HSS_LMS_PrivateKey> load_private(std::span<const std::uint8_t> bytes) {
  return std::make_unique<Botan::HSS_LMS_PrivateKey>(bytes);
}
std::unique_ptr<Botan::HSS_LMS_PublicKey> load_public(std::span<const std::uint8_t> bytes) {
  return std::make_unique<Botan::HSS_LMS_PublicKey>(bytes);
}
#pragma GCC diagnostic pop

struct Clock {
  std::chrono::steady_clock::time_point wall;
  double cpu_s;
  static Clock now() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return {std::chrono::steady_clock::now(), static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9};
  }
};

struct Sample {
  double wall_ms;
  double cpu_ms;
};

Sample since(const Clock& start) {
  const Clock end = Clock::now();
  return {std::chrono::duration<double, std::milli>(end.wall - start.wall).count(), (end.cpu_s - start.cpu_s) * 1e3};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void report(const char* what, const std::vector<Sample>& samples) {
  std::vector<double> wall, cpu;
  for (const auto& s : samples) {
    wall.push_back(s.wall_ms);
    cpu.push_back(s.cpu_ms);
  }
  std::printf("%-8s reps=%zu median_wall_ms=%.3f median_cpu_ms=%.3f min_wall_ms=%.3f\n", what, samples.size(),
              median(wall), median(cpu), *std::min_element(wall.begin(), wall.end()));
}

std::vector<std::uint8_t> sign_once(const Botan::HSS_LMS_PrivateKey& key, Botan::RandomNumberGenerator& rng,
                                    std::span<const std::uint8_t> msg) {
  Botan::PK_Signer signer(key, rng, "");
  signer.update(msg);
  return signer.signature(rng);
}

bool verify_once(const Botan::Public_Key& key, std::span<const std::uint8_t> msg, std::span<const std::uint8_t> sig) {
  Botan::PK_Verifier verifier(key, "");
  verifier.update(msg);
  return verifier.check_signature(sig);
}

int usage() {
  std::fputs(
      "usage: klms-botan-hss-lms version\n"
      "       klms-botan-hss-lms keygen PARAMS PRIV PUB\n"
      "       klms-botan-hss-lms sign PRIV MSG SIG\n"
      "       klms-botan-hss-lms verify PUB MSG SIG\n"
      "       klms-botan-hss-lms bench PARAMS MSG [REPS]\n",
      stderr);
  return 2;
}

int run(int argc, char** argv) {
  if (argc < 2) return usage();
  const std::string_view cmd = argv[1];
  Botan::System_RNG rng;
  if (cmd == "version" && argc == 2) {
    std::printf("%s\n", Botan::short_version_string().c_str());
    return 0;
  }
  if (cmd == "keygen" && argc == 5) {
    const Botan::HSS_LMS_PrivateKey key(rng, argv[2]);
    write_file(argv[3], key.private_key_bits());
    write_file(argv[4], key.raw_public_key_bits());
    return 0;
  }
  if (cmd == "sign" && argc == 5) {
    const auto key = load_private(read_file(argv[2]));
    const auto msg = read_file(argv[3]);
    Botan::PK_Signer signer(*key, rng, "");
    signer.update(msg);
    const auto sig = signer.signature(rng);
    // The key object's index has advanced; persist it before the signature leaves.
    write_file(argv[2], key->private_key_bits());
    write_file(argv[4], sig);
    return 0;
  }
  if (cmd == "verify" && argc == 5) {
    const auto key = load_public(read_file(argv[2]));
    const bool ok = verify_once(*key, read_file(argv[3]), read_file(argv[4]));
    std::printf("%s\n", ok ? "Signature Verified Successfully" : "Signature Verification Failure");
    return ok ? 0 : 1;
  }
  if (cmd == "bench" && (argc == 4 || argc == 5)) {
    const std::string params = argv[2];
    const auto msg = read_file(argv[3]);
    const int reps = argc == 5 ? std::atoi(argv[4]) : 5;
    if (reps < 1) return usage();
    std::vector<Sample> keygen, sign, verify;
    std::unique_ptr<Botan::HSS_LMS_PrivateKey> key;
    for (int i = 0; i < reps; ++i) {
      const Clock t = Clock::now();
      key = std::make_unique<Botan::HSS_LMS_PrivateKey>(rng, params);
      keygen.push_back(since(t));
    }
    const auto pub = key->public_key();
    for (int i = 0; i < reps; ++i) {
      Clock t = Clock::now();
      const auto sig = sign_once(*key, rng, msg);
      sign.push_back(since(t));
      t = Clock::now();
      const bool ok = verify_once(*pub, msg, sig);
      verify.push_back(since(t));
      if (!ok) throw std::runtime_error("Botan failed to verify its own signature");
    }
    std::printf("botan %s, %s, message %zu bytes\n", Botan::short_version_string().c_str(), params.c_str(), msg.size());
    report("keygen", keygen);
    report("sign", sign);
    report("verify", verify);
    return 0;
  }
  return usage();
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "klms-botan-hss-lms: %s\n", e.what());
    return 2;
  }
}
