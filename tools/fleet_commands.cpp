// klms-state join and leave (docs/fleet.md "Joining a host", "Leaving, replacing, losing a host").
// Where the cluster is: the KLMS_ETCD_* variables (klms-state reads no openssl.cnf).
#include "tools/fleet_commands.h"

#include <openssl/pem.h>
#include <openssl/x509.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hashes/backend.h"
#include "state/remedy.h"
#include "state/store.h"
#include "base/hex.h"
#include "tools/lease_cache.h"

namespace klms::tools {
namespace {

namespace state = klms::state;
constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

int fail(const std::string& what, klms::Error e, const std::string& path) {
  std::cerr << "klms-state: " << what << ": " << klms::describe(e) << state::remedy_of(e, path) << "\n";
  return kExitFailed;
}

struct BioFree {
  void operator()(BIO* b) const noexcept { BIO_free(b); }
};
struct PubkeyFree {
  void operator()(X509_PUBKEY* p) const noexcept { X509_PUBKEY_free(p); }
};

// The raw RFC 8554 public key of a SubjectPublicKeyInfo (PEM "PUBLIC KEY" or DER), as `openssl pkey
// -pubout` writes it. The SPKI is parsed by libcrypto without knowing the algorithm (no provider);
// RFC 9708's BIT STRING holds the raw key, RFC 8708's an OCTET STRING of it.
bool raw_public_key(const std::string& path, std::vector<unsigned char>& raw, std::string& why) {
  std::unique_ptr<BIO, BioFree> in(BIO_new_file(path.c_str(), "rb"));
  if (!in) {
    why = "cannot open " + path;
    return false;
  }
  unsigned char* der = nullptr;
  long der_len = 0;
  char* name = nullptr;
  char* header = nullptr;
  std::vector<unsigned char> bytes;
  if (PEM_read_bio(in.get(), &name, &header, &der, &der_len) == 1) {
    const bool spki = std::string_view(name) == "PUBLIC KEY";
    bytes.assign(der, der + der_len);
    OPENSSL_free(name);
    OPENSSL_free(header);
    OPENSSL_free(der);
    if (!spki) {
      why = path + " is not a public key: give the key's public key (openssl pkey -in KEY -pubout -out KEY.pub)";
      return false;
    }
  } else {
    std::unique_ptr<BIO, BioFree> again(BIO_new_file(path.c_str(), "rb"));
    unsigned char buf[4096];
    int n = 0;
    while (again && (n = BIO_read(again.get(), buf, sizeof buf)) > 0) bytes.insert(bytes.end(), buf, buf + n);
  }
  const unsigned char* p = bytes.data();
  std::unique_ptr<X509_PUBKEY, PubkeyFree> spki(d2i_X509_PUBKEY(nullptr, &p, static_cast<long>(bytes.size())));
  const unsigned char* key = nullptr;
  int key_len = 0;
  X509_ALGOR* alg = nullptr;
  if (!spki || X509_PUBKEY_get0_param(nullptr, &key, &key_len, &alg, spki.get()) != 1 || key_len <= 0) {
    why = path + " is not a public key (PEM \"PUBLIC KEY\" or DER SubjectPublicKeyInfo)";
    return false;
  }
  if (key[0] == 0x04 && key_len >= 2 && key[1] < 0x80 && key[1] + 2 == key_len) {
    key += 2;
    key_len -= 2;
  }
  raw.assign(key, key + key_len);
  return true;
}

}  // namespace

int join_command(int argc, char** argv) {
  std::vector<std::string> positional;
  state::StateOptions options;
  std::string tree_cache;
  for (int i = 2; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--tree-cache" && i + 1 < argc) {
      tree_cache = argv[++i];
      // A copy of another host's <state>.cache: the cache belongs to the key, not to a state file.
      if (tree_cache.size() <= 6 || tree_cache.compare(tree_cache.size() - 6, 6, ".cache") != 0) return kExitUsage;
    } else if (arg == "--allow-network-fs") options.allow_network_fs = true;
    else if (arg == "--allow-no-file-handles") options.allow_no_file_handles = true;
    else if (!arg.empty() && arg[0] != '-') positional.emplace_back(arg);
    else return kExitUsage;
  }
  if (positional.size() != 2) return kExitUsage;
  const std::string& key_path = positional[0];
  const std::string& path = positional[1];
  std::vector<unsigned char> raw;
  std::string why;
  if (!raw_public_key(key_path, raw, why)) {
    std::cerr << "klms-state: join: " << why << "\n";
    return kExitFailed;
  }
  state::KeyId key_id{};
  hashes::sha256_digest(raw.data(), raw.size(), key_id.data());  // docs/state.md: the key id
  auto info = state::join_state_file(path, key_id, options);
  if (!info) return fail("join " + path, info.error(), path);
  if (!tree_cache.empty()) {
    const std::string why_not = copy_tree_cache(tree_cache.substr(0, tree_cache.size() - 6), path);
    if (!why_not.empty()) std::cerr << "klms-state: join: the tree cache was not copied (" << why_not
                                    << "); the first signature builds the tree\n";
  }
  char host[16];
  std::snprintf(host, sizeof host, "%08x", info->witness.record.fleet.host_id);
  std::cerr << "klms-state: joined key " << hex(key_id).substr(0, 16) << " as host " << host << ": " << path
            << " (maximum " << info->max_signatures << "; it takes its first block at its first signature)\n";
  return kExitOk;
}

int leave_command(int argc, char** argv) {
  std::string path;
  state::StateOptions options;
  for (int i = 2; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--allow-network-fs") options.allow_network_fs = true;
    else if (path.empty() && !arg.empty() && arg[0] != '-') path = arg;
    else return kExitUsage;
  }
  if (path.empty()) return kExitUsage;
  auto before = state::inspect_state_file(path);
  if (!before) return fail("leave " + path, before.error(), path);
  if (before->witness.record.kind != state::WitnessKind::kEtcd) {
    std::cerr << "klms-state: leave " << path << ": not a fleet host's state file (its witness is "
              << state::witness_kind_name(before->witness.record.kind) << "); to end a key use klms-state retire\n";
    return kExitFailed;
  }
  // Leaving is retirement of this host's file: exhausted first, then its record goes.
  auto info = state::retire_state_file(path, options);
  if (!info) return fail("leave " + path, info.error(), path);
  std::cerr << "klms-state: " << path << " left the fleet: it signs nothing more; the rest of its block is given up\n";
  return kExitOk;
}

}  // namespace klms::tools
