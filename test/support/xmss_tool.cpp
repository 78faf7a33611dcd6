// klms-xmss-tool: XMSS and XMSS^MT with raw RFC 8391 files, for checking klms against other
// implementations (the reference implementation's xmss_open, BouncyCastle, Botan) outside the provider.
//
//   klms-xmss-tool keygen SET SEED-HEX|random PUBLIC-KEY PRIVATE-KEY [THREADS]
//       a key from 3n seed bytes (SK_SEED || SK_PRF || SEED) or getrandom; the public key raw
//       (u32 oid || root || SEED), the private key in the reference implementation's layout
//       (u32 oid || idx || SK_SEED || SK_PRF || root || SEED, xmss/wire_format.h)
//   klms-xmss-tool sign SCHEME PRIVATE-KEY MESSAGE OUT-PREFIX INDEX...
//       one signature per index: OUT-PREFIX.INDEX.sig (raw) and OUT-PREFIX.INDEX.sm (signature ||
//       message, what the reference's xmss_open reads); the private key file is only read
//   klms-xmss-tool verify SCHEME PUBLIC-KEY MESSAGE SIGNATURE...
//       prints "FILE: VERIFIED" or "FILE: REJECTED <reason>" per signature; exit 0 when all verified
// SCHEME is XMSS or XMSSMT; SET a name of xmss/params.h. Seeded keys are for tests only.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "xmss/keygen.h"
#include "xmss/signer.h"
#include "xmss/verify.h"
#include "xmss/wire_format.h"

namespace {

using klms::Bytes;
using klms::ByteView;
using klms::xmss::Scheme;

bool read_file(const std::string& path, Bytes& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return true;
}

bool write_file(const std::string& path, ByteView data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  return static_cast<bool>(out);
}

bool parse_scheme(const std::string& s, Scheme& out) {
  if (s == "XMSS") {
    out = Scheme::kXmss;
  } else if (s == "XMSSMT") {
    out = Scheme::kXmssMt;
  } else {
    return false;
  }
  return true;
}

Bytes from_hex(const std::string& hex) {
  Bytes out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) out.push_back(static_cast<std::uint8_t>(std::stoul(hex.substr(i, 2), nullptr, 16)));
  return out;
}

int fail(const char* what, klms::Error e) {
  std::fprintf(stderr, "klms-xmss-tool: %s: %s\n", what, klms::describe(e));
  return 2;
}

int keygen(const std::string& set, const std::string& seed_hex, const std::string& pub_path,
           const std::string& key_path, unsigned threads) {
  const klms::xmss::Params* p = klms::xmss::find_params(set);
  if (p == nullptr) {
    std::fprintf(stderr, "klms-xmss-tool: unknown parameter set %s\n", set.c_str());
    return 2;
  }
  const auto t0 = std::chrono::steady_clock::now();
  klms::xmss::BuildOptions build;
  build.threads = threads;
  klms::Result<klms::xmss::GeneratedKey> g = klms::Error::kInternal;
  if (seed_hex == "random") {
    g = klms::xmss::generate_key(*p, build);
  } else {
    const Bytes seed = from_hex(seed_hex);
    if (seed.size() != 3u * p->n) return fail("seed", klms::Error::kBadSeedLength);
    const ByteView s(seed);
    g = klms::xmss::generate_key_from_seeds(*p, s.first(p->n), s.subspan(p->n, p->n), s.subspan(2 * p->n, p->n), build);
  }
  if (!g) return fail("keygen", g.error());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  klms::xmss::ReferencePrivateKey sk;
  sk.params = p;
  sk.sk_seed = g->key.sk_seed;
  sk.sk_prf = g->key.sk_prf;
  std::memcpy(sk.root, g->key.root.data(), p->n);
  std::memcpy(sk.pub_seed, g->key.pub_seed.data(), p->n);
  const klms::SecretBytes encoded = klms::xmss::encode_reference_private_key(sk);
  if (!write_file(pub_path, g->public_key) || !write_file(key_path, ByteView(encoded.data(), encoded.size()))) {
    std::fprintf(stderr, "klms-xmss-tool: cannot write the key files\n");
    return 2;
  }
  std::printf("%s keygen %.3f s\n", set.c_str(), seconds);
  return 0;
}

int sign(Scheme scheme, const std::string& key_path, const std::string& message_path, const std::string& prefix,
         const std::vector<std::string>& indices) {
  Bytes raw, message;
  if (!read_file(key_path, raw) || !read_file(message_path, message)) {
    std::fprintf(stderr, "klms-xmss-tool: cannot read %s or %s\n", key_path.c_str(), message_path.c_str());
    return 2;
  }
  const auto sk = klms::xmss::parse_reference_private_key(scheme, raw);
  if (!sk) return fail("private key", sk.error());
  const klms::xmss::Params& p = *sk->params;
  auto key = klms::xmss::KeyMaterial::from_fields(p, ByteView(sk->sk_seed.data(), p.n), ByteView(sk->sk_prf.data(), p.n),
                                                  ByteView(sk->pub_seed, p.n), ByteView(sk->root, p.n));
  if (!key) return fail("private key", key.error());
  auto signer = klms::xmss::Signer::create(std::move(*key), klms::xmss::SignerOptions{});
  if (!signer) return fail("signer", signer.error());
  for (const std::string& index : indices) {
    const auto sig = (*signer)->sign(std::stoull(index), message);
    if (!sig) return fail("sign", sig.error());
    Bytes sm = *sig;
    klms::append(sm, message);
    if (!write_file(prefix + "." + index + ".sig", *sig) || !write_file(prefix + "." + index + ".sm", sm)) {
      std::fprintf(stderr, "klms-xmss-tool: cannot write the signature files\n");
      return 2;
    }
  }
  return 0;
}

int verify(Scheme scheme, const std::string& pub_path, const std::string& message_path,
           const std::vector<std::string>& signatures) {
  Bytes pk, message;
  if (!read_file(pub_path, pk) || !read_file(message_path, message)) {
    std::fprintf(stderr, "klms-xmss-tool: cannot read %s or %s\n", pub_path.c_str(), message_path.c_str());
    return 2;
  }
  int status = 0;
  for (const std::string& path : signatures) {
    Bytes sig;
    if (!read_file(path, sig)) {
      std::printf("%s: REJECTED unreadable\n", path.c_str());
      status = 1;
      continue;
    }
    const klms::Error e = klms::xmss::verify(scheme, pk, message, sig);
    if (e == klms::Error::kOk) {
      std::printf("%s: VERIFIED\n", path.c_str());
    } else {
      std::printf("%s: REJECTED %s\n", path.c_str(), klms::describe(e));
      status = 1;
    }
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  Scheme scheme{};
  if ((args.size() == 5 || args.size() == 6) && args[0] == "keygen") {
    return keygen(args[1], args[2], args[3], args[4], args.size() == 6 ? static_cast<unsigned>(std::stoul(args[5])) : 0);
  }
  if (args.size() >= 6 && args[0] == "sign" && parse_scheme(args[1], scheme)) {
    return sign(scheme, args[2], args[3], args[4], std::vector<std::string>(args.begin() + 5, args.end()));
  }
  if (args.size() >= 5 && args[0] == "verify" && parse_scheme(args[1], scheme)) {
    return verify(scheme, args[2], args[3], std::vector<std::string>(args.begin() + 4, args.end()));
  }
  std::fprintf(stderr,
               "usage: klms-xmss-tool keygen SET SEED-HEX|random PUBLIC-KEY PRIVATE-KEY [THREADS]\n"
               "       klms-xmss-tool sign XMSS|XMSSMT PRIVATE-KEY MESSAGE OUT-PREFIX INDEX...\n"
               "       klms-xmss-tool verify XMSS|XMSSMT PUBLIC-KEY MESSAGE SIGNATURE...\n");
  return 2;
}
