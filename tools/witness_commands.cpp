// klms-state's witness, retirement, backup and restore commands (docs/backup.md, docs/state.md
// "The witness"). Where the TPM is: --tcti or $KLMS_TPM_TCTI (klms-state reads no openssl.cnf).
#include "tools/witness_commands.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/path.h"
#include "base/secret.h"
#include "state/remedy.h"
#include "state/store.h"
#include "state/witness_secret.h"
#include "base/hex.h"
#include "tools/signature_index.h"

namespace klms::tools {
namespace {

namespace state = klms::state;

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

// The error, what to do about it with `path` in it, and the witness module's own words in
// brackets (state/remedy.h).
int fail(const std::string& what, klms::Error e, const std::string& path = {}) {
  std::cerr << "klms-state: " << what << ": " << klms::describe(e) << state::remedy_of(e, path) << "\n";
  return kExitFailed;
}

// A plain decimal number: digits only (no sign, space or base prefix), within 64 bits.
bool parse_decimal(std::string_view text, std::uint64_t& out) {
  if (text.empty() || text.size() > 20) return false;
  std::uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    const std::uint64_t digit = static_cast<std::uint64_t>(c - '0');
    if (v > (~std::uint64_t{0} - digit) / 10) return false;
    v = v * 10 + digit;
  }
  out = v;
  return true;
}

// Options every witness command takes: --tcti, --tpm-timeout-ms, --tpm-owner-auth-file.
// Returns false on a usage error; `i` is left at the last argument consumed.
bool witness_option(int argc, char** argv, int& i, state::WitnessConfig& config, bool& bad) {
  const std::string_view arg = argv[i];
  if (arg == "--tcti" && i + 1 < argc) {
    config.tpm_tcti = argv[++i];
    return true;
  }
  if (arg == "--tpm-timeout-ms" && i + 1 < argc) {
    std::uint64_t ms = 0;
    if (!parse_decimal(argv[++i], ms) || ms == 0 || ms > 600000) bad = true;
    config.timeout_ms = static_cast<unsigned>(ms);
    return true;
  }
  if (arg == "--etcd-timeout-ms" && i + 1 < argc) {
    std::uint64_t ms = 0;
    if (!parse_decimal(argv[++i], ms) || ms == 0 || ms > 600000) bad = true;
    config.etcd_timeout_ms = static_cast<unsigned>(ms);
    return true;
  }
  if (arg == "--tpm-owner-auth-file" && i + 1 < argc) {
    std::ifstream f(argv[++i], std::ios::binary);
    std::string auth((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    while (!auth.empty() && (auth.back() == '\n' || auth.back() == '\r')) auth.pop_back();
    if (!f && !f.eof()) bad = true;
    config.tpm_owner_auth = auth;
    klms::wipe(auth.data(), auth.size());
    return true;
  }
  return false;
}

bool read_file(const std::string& path, std::vector<std::uint8_t>& out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  out.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return true;
}

// Asks for the typed confirmation (the key id's first 16 hex digits) unless --yes was given.
bool confirmed(const std::string& prompt, const std::string& expected) {
  std::cerr << prompt << "\nType " << expected << " to go on: " << std::flush;
  std::string answer;
  if (!std::getline(std::cin, answer)) return false;
  return answer == expected;
}

std::string short_id(const state::KeyId& id) { return hex(id).substr(0, 16); }

constexpr const char* kWitnessSecretFile = state::kWitnessSecretName;

// The directory part of an absolute path ("/" for a file at the root).
std::string directory_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == 0 || slash == std::string::npos ? std::string("/") : path.substr(0, slash);
}

}  // namespace

std::string count_of(std::uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string witness_lines(const state::StateInfo& info) {
  const state::WitnessStatus& w = info.witness;
  if (w.record.kind == state::WitnessKind::kNone) return "witness:          none (a restored copy of this file is not detected)\n";
  std::string out = std::string("witness:          ") + state::witness_kind_name(w.record.kind);
  if (w.record.nv_index != 0) {
    char index[16];
    std::snprintf(index, sizeof index, "0x%08x", w.record.nv_index);
    out += std::string(" counter ") + index;
  }
  if (w.record.kind == state::WitnessKind::kEtcd) {
    char host[16];
    std::snprintf(host, sizeof host, "%08x", w.record.fleet.host_id);
    out += std::string(" host ") + host + ", block ends at " + std::to_string(w.record.fleet.block_end) +
           ", cluster revision seen " + std::to_string(w.record.fleet.revision_seen);
    if (w.fleet_revision != 0) {
      out += "\nfleet:            key counter " + std::to_string(w.fleet_counter) + ", " + std::to_string(w.fleet_hosts) +
             " host record(s), this host's next " + std::to_string(w.fleet_host_next);
    }
  }
  const bool tpm_bound = w.record.kind == state::WitnessKind::kTpm && w.record.nv_index != 0;
  // A retired key's counter is released: gone, or another key's now (never reported as this one's).
  const bool released = tpm_bound && info.exhausted() &&
                        (w.state == state::WitnessState::kMissing || w.state == state::WitnessState::kDifferent);
  if (tpm_bound && !w.record.tpm_policy) {
    out += " (bound before per-binding counter policies: its name does not tell it from another klms counter at "
           "that index; klms-state adopt or resync re-binds it)";
  }
  if (released) {
    out += "\nwitness state:    released (the key is retired; that index holds " +
           std::string(w.state == state::WitnessState::kMissing ? "no counter" : "another counter") + " now)";
    return out + "\n";
  }
  out += "\nwitness state:    " + std::string(state::witness_state_name(w.state));
  if (w.state == state::WitnessState::kAgrees) out += ", high-water " + std::to_string(w.high_water);
  if (w.state == state::WitnessState::kBehind) {
    out += ": the counter says " + std::to_string(w.high_water) + ", the file " + std::to_string(info.next) +
           " (" + count_of(w.difference, "index", "indices") + " may have been used since); run klms-state resync";
    if (w.tpm_restarted) {
      out += " (the TPM restarted since this file's last write: if it is a virtual TPM whose state a VM snapshot "
             "rolled back, indices beyond the counter may have been used too; see docs/backup.md \"Virtual TPMs\")";
    }
  }
  if (w.state == state::WitnessState::kPending) {
    out += ": " + count_of(w.difference, "increment", "increments") + " to complete (the next signature does it)";
  }
  if (!w.message.empty() && w.state != state::WitnessState::kAgrees && w.state != state::WitnessState::kPending &&
      w.state != state::WitnessState::kBehind) {
    out += " (" + w.message + ")";
  }
  if (tpm_bound && w.read_as_owner && w.state != state::WitnessState::kUnreachable) {
    out += "\nwitness read as:  owner (no " + std::string(kWitnessSecretFile) +
           " beside the state file: it cannot sign until the secret is put back, or klms-state adopt re-binds it)";
  }
  return out + "\n";
}

// The index after the one a signature file was made with (restore and resync --after-signature).
bool mark_after_signature(const std::string& sig_path, std::uint64_t& mark) {
  std::vector<std::uint8_t> sig;
  if (!read_file(sig_path, sig)) {
    std::cerr << "klms-state: cannot read " << sig_path << "\n";
    return false;
  }
  auto q = hss_signature_index(sig);
  if (!q) {
    std::cerr << "klms-state: reading the signature " << sig_path << ": " << klms::describe(q.error()) << "\n";
    return false;
  }
  std::cerr << "klms-state: " << sig_path << " was made with index " << *q << "\n";
  mark = std::max(mark, *q + 1);  // cannot wrap: an index is below 2^64 - 1
  return true;
}

int resync_command(int argc, char** argv) {
  state::StateOptions options;
  std::string path;
  bool bad = false;
  for (int i = 2; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (witness_option(argc, argv, i, options.witness_config, bad)) continue;
    if (arg == "--allow-network-fs") options.allow_network_fs = true;
    else if (arg == "--tpm-not-rolled-back") options.tpm_not_rolled_back = true;
    else if (arg == "--counter-at-least" && i + 1 < argc) {
      std::uint64_t n = 0;
      if (!parse_decimal(argv[++i], n)) bad = true;
      options.fleet_counter_at_least = std::max(options.fleet_counter_at_least, n);
    } else if (arg == "--after-signature" && i + 1 < argc) {
      if (!mark_after_signature(argv[++i], options.fleet_counter_at_least)) return kExitFailed;
    } else if (path.empty() && argv[i][0] != '-') path = argv[i];
    else return kExitUsage;
  }
  if (path.empty() || bad) return kExitUsage;
  // What the counter was before, to say when resync re-binds it (docs/state.md "One binding, one name").
  auto before = state::inspect_state_file(path, options);
  std::uint64_t skipped = 0;
  auto info = state::resync_state_file(path, options, &skipped);
  if (!info && info.error() == klms::Error::kStateBehindWitness) {
    // Refused before anything was written: the TPM restarted since the file's last write.
    std::cerr << "klms-state: resync " << path << ": refused: the file is behind its TPM counter, and the TPM reset "
                 "or restarted since the file's last write.\nThat gap is what an orderly counter's jump after an "
                 "unclean restart looks like, and also what a virtual TPM rolled back with a VM snapshot looks like:\n"
                 "then indices beyond the counter may have been used by the discarded timeline. Give a mark from "
                 "outside this host:\n  klms-state resync --after-signature LAST.sig "
              << state::shell_word(path)
              << "   (the newest signature the key made)\n  klms-state resync --counter-at-least N "
              << state::shell_word(path)
              << "      (beyond every index ever used)\nor, only if this TPM's state was never restored (a hardware "
                 "TPM, or a vTPM kept outside every snapshot):\n  klms-state resync --tpm-not-rolled-back "
              << state::shell_word(path) << "\n(docs/backup.md \"Virtual TPMs\")\n";
    return kExitFailed;
  }
  if (!info) return fail("resync " + path, info.error(), path);
  std::cerr << "klms-state: " << path << ": next index " << info->next << " (" << count_of(skipped, "index", "indices")
            << " skipped";
  if (options.fleet_counter_at_least != 0 && info->witness.record.kind == state::WitnessKind::kEtcd) {
    // docs/fleet.md "Disaster restore": the mark the user gave, not what the witness said.
    std::cerr << "); the key's counter in the cluster is now at least " << options.fleet_counter_at_least
              << " (--counter-at-least or --after-signature): no block handed out below it before the restore is "
                 "handed out again\n";
  } else if (options.fleet_counter_at_least != 0) {
    std::cerr << "); the file is now at or past the mark " << options.fleet_counter_at_least
              << " (--counter-at-least or --after-signature)\n";
  } else {
    std::cerr << ": " << (skipped == 1 ? "it" : "they") << " may have been used while this file was behind its witness)\n";
  }
  if (before && before->witness.record.kind == state::WitnessKind::kTpm &&
      before->witness.record.counter_name != info->witness.record.counter_name) {
    char index[16];
    std::snprintf(index, sizeof index, "0x%08x", info->witness.record.nv_index);
    std::cerr << "klms-state: bound to a new TPM counter " << index << " ("
              << (before->witness.read_as_owner ? std::string("the old one was read with owner authorization: no ") +
                                                      kWitnessSecretFile + " beside the file"
                                                : std::string("the old one was bound before per-binding policies"))
              << "; it was undefined)\n";
  }
  return kExitOk;
}

int retire_command(int argc, char** argv) {
  state::StateOptions options;
  std::string path;
  bool yes = false, bad = false;
  for (int i = 2; i < argc; ++i) {
    if (witness_option(argc, argv, i, options.witness_config, bad)) continue;
    if (std::string_view(argv[i]) == "--yes") yes = true;
    else if (path.empty() && argv[i][0] != '-') path = argv[i];
    else return kExitUsage;
  }
  if (path.empty() || bad) return kExitUsage;
  auto before = state::read_state_file(path, options);
  if (!before) return fail("retire " + path, before.error(), path);
  const std::string id = short_id(before->key_id);
  if (!yes && !confirmed("klms-state: retiring key " + id + "...: " + path + " will sign nothing ever again (" +
                             std::to_string(before->remaining()) + " signatures left are given up) and its witness "
                             "counter is released.",
                         id)) {
    std::cerr << "klms-state: not confirmed; the state file was not changed\n";
    return kExitFailed;
  }
  klms::Error released = klms::Error::kOk;
  auto info = state::retire_state_file(path, options, &released);
  if (!info) return fail("retire " + path, info.error(), path);
  std::cerr << "klms-state: " << path << " retired (exhausted); keep the key file for verification only\n";
  if (released == klms::Error::kWitnessMissing) {
    std::cerr << "klms-state: its witness counter was released already\n";
  } else if (released == klms::Error::kWitnessMismatch) {
    std::cerr << "klms-state: its witness counter was released already; another counter holds that NV index now "
                 "and was left alone\n";
  } else if (released == klms::Error::kWitnessSecretMissing) {
    std::cerr << "klms-state: its counter was NOT released: it was bound before per-binding policies and without "
              << kWitnessSecretFile << " it cannot be told from another klms counter at that index\n";
  }
  return kExitOk;
}

int backup_command(int argc, char** argv) {
  if (argc != 4) return kExitUsage;
  const std::string path = argv[2], out = argv[3];
  if (klms::Error e = state::backup_state_file(path, out); e != klms::Error::kOk) return fail("backup " + path, e, path);
  auto info = state::read_state_file(out);
  std::cerr << "klms-state: record of " << path << " written to " << out;
  if (info) std::cerr << " (next index " << info->next << ")";
  std::cerr << "\nRestore it only with `klms-state restore " << out << " NEW-STATE-FILE`, never by copying it back.\n";
  return kExitOk;
}

int restore_command(int argc, char** argv) {
  state::StateOptions options;
  std::optional<std::uint64_t> high_water;
  std::vector<std::string> paths;
  bool bad = false;
  for (int i = 2; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (witness_option(argc, argv, i, options.witness_config, bad)) continue;
    if (arg == "--next" && i + 1 < argc) {
      std::uint64_t n = 0;
      if (!parse_decimal(argv[++i], n)) return kExitUsage;
      high_water = n;
    } else if (arg == "--after-signature" && i + 1 < argc) {
      std::uint64_t after = high_water.value_or(0);
      if (!mark_after_signature(argv[++i], after)) return kExitFailed;
      high_water = after;
    } else if (arg == "--allow-network-fs") {
      options.allow_network_fs = true;
    } else if (!arg.empty() && arg[0] != '-') {
      paths.emplace_back(arg);
    } else {
      return kExitUsage;
    }
  }
  if (paths.size() != 2 || bad) return kExitUsage;
  auto target = klms::absolute_path(paths[1]);
  if (!target) return fail("restore " + paths[1], target.error());
  auto info = state::restore_state_file(paths[0], *target, high_water, options);
  if (!info) {
    if (info.error() == klms::Error::kInvalidArgument || info.error() == klms::Error::kWitnessMissing) {
      std::cerr << "klms-state: restore " << paths[1] << ": the record " << paths[0] << " has no witness on this host "
                << "that says how far the key went. Give the high-water mark: --after-signature SIG (the last "
                << "signature the key made) or --next N (beyond every index ever used); see docs/backup.md\n";
      return kExitFailed;
    }
    return fail("restore " + paths[1] + " from " + paths[0], info.error(), paths[1]);
  }
  std::cerr << "klms-state: restored " << paths[1] << " from " << paths[0] << ": next index " << info->next << ", "
            << info->remaining() << " signatures left\n";
  if (info->witness.state == state::WitnessState::kRequired) {
    std::cerr << "klms-state: bind it to this host's TPM before it signs: klms-state adopt --witness tpm " << paths[1]
              << "\n";
  } else if (info->witness.record.kind == state::WitnessKind::kTpm && info->witness.read_as_owner) {
    // Its counter is here, but the directory has no secret to advance it with.
    std::cerr << "klms-state: WARNING: " << directory_of(*target) << " has no " << kWitnessSecretFile
              << ": the restored file cannot sign. Put back the " << kWitnessSecretFile
              << " backed up with the record (docs/backup.md), or run klms-state adopt " << state::shell_word(paths[1])
              << " to bind it to a new counter\n";
  }
  return kExitOk;
}

}  // namespace klms::tools
