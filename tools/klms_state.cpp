// klms-state: the administrative command of the signing state (docs/state.md §4, docs/state-file-guide.md "Moving a key deliberately").
//
//   klms-state show [--json] <state-file>
//   klms-state adopt [--advance N] [--key-id HEX] [--levels-digest HEX] [--allow-network-fs]
//                    [--allow-no-file-handles] [--yes-i-destroyed-the-original] <state-file>
//   klms-state discard [--yes] [--allow-network-fs] [--allow-no-file-handles] <state-file>
//   klms-state lease --count N [--allow-network-fs] [--allow-no-file-handles] <parent-state-file> <new-lease-file>
//   klms-state acknowledge [--key-id HEX] [--allow-network-fs] [--allow-no-file-handles] <state-file>
// Numbers are plain decimal: digits only.
//
// Exit status: 0 done, 1 refused or failed, 2 usage.
#include <sys/sysmacros.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>

#include "base/hex.h"
#include "state/remedy.h"
#include "state/store.h"
#include "tools/lease_cache.h"
#include "tools/fleet_commands.h"
#include "tools/witness_commands.h"
#include "tools/signing_verdict.h"
#include "tools/state_json.h"

namespace {
namespace state = klms::state;

using klms::state::StateInfo;

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

using klms::hex;

bool parse_key_id(std::string_view text, klms::state::KeyId& out) {
  if (text.size() != out.size() * 2) return false;
  for (std::size_t i = 0; i < out.size(); ++i) {
    unsigned value = 0;
    for (char c : text.substr(2 * i, 2)) {
      value <<= 4;
      if (c >= '0' && c <= '9') value |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f') value |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') value |= static_cast<unsigned>(c - 'A' + 10);
      else return false;
    }
    out[i] = static_cast<std::uint8_t>(value);
  }
  return true;
}

// A plain decimal number: digits only (no sign, space, hex or octal prefix), at most 2^64 - 1.
// strtoull would take " -1" as 2^64 - 1.
bool parse_u64(const char* s, std::uint64_t& out) {
  if (s == nullptr || *s == '\0') return false;
  std::uint64_t v = 0;
  for (const char* p = s; *p != '\0'; ++p) {
    if (*p < '0' || *p > '9') return false;
    const auto digit = static_cast<std::uint64_t>(*p - '0');
    if (v > (UINT64_MAX - digit) / 10) return false;
    v = v * 10 + digit;
  }
  out = v;
  return true;
}

// A number option's value, or a usage error naming it.
bool number_option(const char* name, const char* text, std::uint64_t& out) {
  if (parse_u64(text, out)) return true;
  std::cerr << "klms-state: " << name << " '" << text << "' is not a plain decimal number (digits only)\n";
  return false;
}

std::string device_text(std::uint64_t device, std::uint64_t inode) {
  const auto dev = static_cast<dev_t>(device);
  return "device " + std::to_string(device) + " (" + std::to_string(major(dev)) + ":" + std::to_string(minor(dev)) +
         "), inode " + std::to_string(inode);
}

bool same_numbers(const state::StateInfo& info) { return info.device == info.actual_device && info.inode == info.actual_inode; }

// The one threshold (docs/state.md §5): how many of the last indices warn, and whether signing
// waits for `klms-state acknowledge`.
std::string exhaustion_text(const state::StateInfo& info) {
  const std::uint64_t threshold = info.exhaustion_threshold();
  if (threshold == 0) return "no warning (low_signatures_warning = 0)";
  std::string out = "threshold " + std::to_string(threshold) + " (low_signatures_warning = " +
                    std::to_string(info.low_signatures_warning) + ", at most a tenth of the range)";
  if (info.exhausted()) return out;
  if (info.below_exhaustion_threshold()) {
    out = "WARNING: only " + std::to_string(info.remaining()) + " left; " + out;
    out += "; prepare the key that replaces this one";
  }
  if (info.lease) return out + "; a lease signs to its end";
  if (info.exhaustion_acknowledged) return out + "; acknowledged: signs to its last signature";
  return out + (info.below_exhaustion_threshold() ? "; NOT ACKNOWLEDGED: signing refuses until klms-state acknowledge"
                                                  : "; not acknowledged");
}

// A fleet host's `remaining` is the key's, counted from this host's next index: the other hosts
// take their blocks from the same counter (docs/fleet.md "How indices are handed out").
std::string fleet_remaining_text(const state::StateInfo& info) {
  const state::WitnessStatus& w = info.witness;
  if (w.record.kind != state::WitnessKind::kEtcd || info.exhausted()) return {};
  std::string out = " (the key's, from this host's next index";
  if (w.fleet_revision != 0 && w.fleet_counter <= info.max_signatures) {
    out += "; " + std::to_string(info.max_signatures - w.fleet_counter) + " not yet handed out to any host";
  }
  return out + ")";
}

// The copy verdict: the file's own identity, or its witness's (a copy restored in place keeps the
// identity, and only the witness sees it).
std::string copied_text(const state::StateInfo& info) {
  if (info.looks_copied()) return "YES - signing refuses this file until it is adopted (klms-state adopt)";
  if (info.witness.state == state::WitnessState::kBehind) {
    return "YES - its witness says it was restored or rolled back (below); run klms-state resync";
  }
  return "no";
}

// Returns what signing would say of the file (kOk: it signs), as show's exit status tells.
klms::Error print_info(const std::string& path, const state::StateInfo& info) {
  const klms::Error refusal = klms::tools::signing_refusal(path, info);
  std::cout << "state file:       " << path << "\n"
            << "format version:   " << info.format_version
            << (info.format_version == 1 ? " (rewritten as version 2 by the next signature)" : "") << "\n"
            << "condition:        "
            << (refusal == klms::Error::kOk ? std::string("readable")
                                             : std::string("REFUSED FOR SIGNING: ") + klms::describe(refusal) +
                                                   state::remedy_of(refusal, path))
            << "\n"
            << "key id:           " << hex(info.key_id) << "\n"
            << "levels digest:    " << (info.levels_bound() ? hex(info.levels_digest) : std::string("not bound yet")) << "\n"
            << "kind:             "
            << (info.lease ? "LEASE of indices [" + std::to_string(info.lease_start) + ", " + std::to_string(info.lease_end) +
                                 ") (" + std::to_string(info.lease_end - info.lease_start) + " indices), depth " +
                                 std::to_string(info.lease_depth) + ", cut from the state file with instance id " +
                                 hex(info.parent_instance_id)
                           : std::string("key state file (not a lease)"))
            << "\n"
            << "next index:       " << info.next << "\n"
            << "max signatures:   " << info.max_signatures << "\n"
            << "remaining:        " << info.remaining() << (info.exhausted() ? " (exhausted)" : "")
            << (info.lease ? " (of this lease; it can never sign outside its range)" : "") << fleet_remaining_text(info)
            << "\n"
            << "instance id:      " << hex(info.instance_id) << "\n"
            << "generation:       " << info.generation << "\n"
            << "last reserved by: pid " << info.reserving_pid << "\n"
            << "recorded:         " << device_text(info.device, info.inode) << "\n"
            << "actual:           " << device_text(info.actual_device, info.actual_inode) << "\n"
            << "file handle:      "
            << (!info.file_handle_recorded ? "not recorded (the file system has none)"
                : info.file_handle_changed ? (same_numbers(info) ? "DIFFERENT - a new file that reuses the inode number"
                                                                 : "different - another file")
                                           : "recorded, matches")
            << "\n"
            << "exhaustion:       " << exhaustion_text(info) << "\n"
            << "copied/restored:  " << copied_text(info) << "\n"
            << klms::tools::witness_lines(info);
  return refusal;
}

int fail(const std::string& what, klms::Error e, const std::string& path) {
  std::cerr << "klms-state: " << what << ": " << klms::describe(e) << state::remedy_of(e, path) << "\n";
  return kExitFailed;
}
int fail(const std::string& path, klms::Error e) { return fail(path, e, path); }

// What a state file is, in one line: the kind and the range adoption keeps (docs/state.md "Index leases").
std::string kind_text(const state::StateInfo& info) {
  if (info.lease) {
    return "a LEASE of indices [" + std::to_string(info.lease_start) + ", " + std::to_string(info.lease_end) + ")";
  }
  return "a key state file of indices [0, " + std::to_string(info.max_signatures) + ")";
}

// The typed confirmation of adopt and discard: `verb` and the first 8 hex digits of the key id.
bool confirmed(const std::string& verb, const state::StateInfo& info, const std::string& question) {
  const std::string expected = verb + " " + hex(info.key_id).substr(0, 8);
  std::cerr << question << ", type\n  " << expected << "\nand press Enter: " << std::flush;
  std::string answer;
  if (!std::getline(std::cin, answer)) answer.clear();
  while (!answer.empty() && (answer.back() == '\r' || answer.back() == ' ')) answer.pop_back();
  if (answer == expected) return true;
  std::cerr << "klms-state: not confirmed; the state file was not changed\n";
  return false;
}

int usage() {
  std::cerr << "usage: klms-state show [--json] <state-file>\n"
               "       klms-state adopt [--advance N] [--key-id HEX] [--levels-digest HEX] [--allow-network-fs]\n"
               "                        [--allow-no-file-handles] [--witness tpm] [--yes-i-destroyed-the-original]\n"
               "                        <state-file>\n"
               "       klms-state discard [--yes] [--allow-network-fs] [--allow-no-file-handles] <state-file>\n"
               "       klms-state lease --count N [--allow-network-fs] [--allow-no-file-handles]\n"
               "                        <parent-state-file> <new-lease-file>\n"
               "       klms-state acknowledge [--key-id HEX] [--allow-network-fs] [--allow-no-file-handles]\n"
               "                        <state-file>\n"
               "       klms-state resync [--tcti T] [--counter-at-least N] [--after-signature SIG]\n"
               "                        [--tpm-not-rolled-back] <state-file>\n"
               "       klms-state join [--tree-cache FILE.cache] <key.pub> <new-state-file>\n"
               "       klms-state leave <state-file>\n"
               "       klms-state retire [--yes] [--tcti T] <state-file>\n"
               "       klms-state backup <state-file> <record>\n"
               "       klms-state restore [--after-signature SIG] [--next N] [--tcti T] <record> <new-state-file>\n"
               "  (adopt also takes --witness tpm; every witness command --tcti, --tpm-timeout-ms N,\n"
               "   --tpm-owner-auth-file F; without --tcti, $KLMS_TPM_TCTI or device:/dev/tpmrm0)\n"
               "\n"
               "show     prints what a state file records, whether signing would refuse it, and whether\n"
               "         it looks copied or restored; --json as one JSON object (klms-state(1)).\n"
               "adopt    makes a moved, copied or restored state file usable again, after you confirm\n"
               "         that the original is destroyed. --advance N moves the next index forward by N;\n"
               "         a damaged state file is adopted only with --advance N, N >= 1 (its newest slot\n"
               "         may be lost). --levels-digest HEX binds a state file made before format 2 to\n"
               "         the lower levels of the key file `openssl pkey -text` shows it for.\n"
               "discard  removes a state file that never signed (next index 0), as an interrupted key\n"
               "         generation leaves it (or a lease that never signed: its range is lost), with\n"
               "         its tree caches, after you type the confirmation it asks for (or --yes).\n"
               "lease    gives the next N indices of a state file (a key's, or a lease) to a new state\n"
               "         file of their own, for another signing host: the parent's next index moves past\n"
               "         them durably first, then the lease file is created (never overwritten). Move it\n"
               "         to its host, destroy the original there, and `klms-state adopt` it on that host.\n"
               "join     makes a new host's own state file for a fleet key (witness etcd; the cluster from\n"
               "         KLMS_ETCD_ENDPOINTS etc., docs/fleet.md); --tree-cache copies another host's tree\n"
               "         cache (the key's)\n"
               "leave    the host leaves the fleet: its state file signs nothing more\n"
               "acknowledge  records that a key may use its last signatures: without it signing and\n"
               "         lease refuse the last min(T, range/10) (docs/state.md §5). Type the confirmation it\n"
               "         asks for, or name the whole key id with --key-id HEX; there is no --yes.\n"
               "resync   moves a state file its witness says is behind (restored, copied back, rolled\n"
               "         back) past the witness: every index below the counter's mark may have been used.\n"
               "         --counter-at-least N (a fleet host, after the etcd cluster was restored): the\n"
               "         key's counter moves at least to N, past blocks no host can vouch for\n"
               "         (docs/fleet.md \"Disaster restore\").\n"
               "retire   marks a key exhausted for good and releases its witness counter.\n"
               "backup   writes a record of a state file for `restore` (never copy a record back).\n"
               "restore  makes a NEW state file from a record, past its witness on this host, or past\n"
               "         the high-water mark you give (--after-signature SIG, --next N) (docs/backup.md).\n"
               "N        a plain decimal number: digits only, no sign, spaces or hex.\n";
  return kExitUsage;
}

int show(int argc, char** argv) {
  if (argc >= 3 && std::string_view(argv[2]) == "--json") return argc == 4 ? klms::tools::show_state_json(argv[3]) : usage();
  if (argc != 3) return usage();
  const std::string path = argv[2];
  auto info = klms::state::inspect_state_file(path, klms::state::StateOptions{});
  if (!info) return fail(path, info.error());
  return print_info(path, *info) == klms::Error::kOk ? kExitOk : kExitFailed;
}

int discard(int argc, char** argv) {
  klms::state::StateOptions options;
  bool confirmed_by_flag = false;
  std::string path;
  for (int i = 2; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--allow-network-fs") {
      options.allow_network_fs = true;
    } else if (arg == "--allow-no-file-handles") {
      options.allow_no_file_handles = true;
    } else if (arg == "--yes") {
      confirmed_by_flag = true;
    } else if (!arg.empty() && arg[0] != '-' && path.empty()) {
      path = std::string(arg);
    } else {
      return usage();
    }
  }
  if (path.empty()) return usage();
  // A never-used file may still be a valid key's only state: removing it makes that key unusable.
  auto before = klms::state::inspect_state_file(path);
  if (!before) return fail(path, before.error());
  if (before->refused != klms::Error::kOk) return fail(path, before->refused);
  if (!before->never_used()) {
    std::cerr << "klms-state: " << path << ": refused: this state file has handed out signature indices; "
                 "removing it would not make its key safe to use again. Retire the key instead.\n";
    return kExitFailed;
  }
  std::cerr << "Discarding removes " << path << ", " << kind_text(*before) << " of the key with id\n  "
            << hex(before->key_id) << "\n"
            << "(never used: next index " << before->next << "). A key file that uses it cannot sign again"
            << (before->lease ? "\nwith it; the lease's range is lost for good.\n" : ".\n");
  if (!confirmed_by_flag && !confirmed("discard", *before, "If no key file needs it")) return kExitFailed;
  const klms::Error e = klms::state::discard_unused_state_file(path, options);
  if (e == klms::Error::kStateExists) {
    std::cerr << "klms-state: " << path << ": refused: this state file has handed out signature indices; "
                 "removing it would not make its key safe to use again. Retire the key instead.\n";
    return kExitFailed;
  }
 if (e != klms::Error::kOk) return fail(path, e);
  std::cerr << "klms-state: removed the never-used state file " << path << " and its tree caches\n";
  return kExitOk;
}

void explain_adoption(const state::StateInfo& info, std::uint64_t advance) {
  std::cerr
      << "Adopting a state file declares THIS file the only signing state of its key.\n"
         "\n"
         "Each LMS signature index may be used once. If any other copy of this state file still\n"
         "exists and signs - the original, a backup, a copy on another machine - both hand out the\n"
         "same indices, and anyone who sees two signatures with one index can forge signatures.\n";
  if (info.witness.state == state::WitnessState::kRequired) {
    // Made by `klms-state restore` from the high-water mark the user gave (docs/backup.md
    // "Restoring on a new host (or after losing the TPM)"), which already skipped every index up to it.
    std::cerr << "This file was restored past the high-water mark given to klms-state restore (or adopted\n"
                 "with --advance): it needs no --advance unless that mark was not the last signature.\n"
                 "\n";
  } else {
    std::cerr << "A file restored from a backup is also BEHIND: every index used after the backup was taken\n"
                 "would be used again. If that can be the case, run adopt with --advance N, N larger than\n"
                 "the number of signatures that can have been made since the copy was taken.\n"
                 "\n";
  }
  if (info.looks_copied()) {
    std::cerr << "This file was created as " << device_text(info.device, info.inode) << ";\nit is now "
              << device_text(info.actual_device, info.actual_inode)
              << (info.file_handle_changed && same_numbers(info) ? " (the number was reused by a new file)" : "")
              << ": it was copied, restored or moved.\n";
  } else {
    std::cerr << "This file does not look copied; adopting it only gives it a new instance id (signers that\n"
                 "have it open stop and must reopen it).\n";
  }
  std::cerr << "It will be written as " << kind_text(info) << " (adoption never changes either).\n";
  std::cerr << "Next index " << info.next << ", remaining " << info.remaining();
  if (advance != 0) std::cerr << "; --advance " << advance << " will skip " << (advance == 1 ? "that index" : "that many indices");
  std::cerr << ".\n\n";
}

int adopt(int argc, char** argv) {
  klms::state::AdoptOptions options;
  bool confirmed_by_flag = false;
  std::string path;
  for (int i = 2; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--yes-i-destroyed-the-original") {
      confirmed_by_flag = true;
    } else if (arg == "--advance" && i + 1 < argc) {
      if (!number_option("--advance", argv[++i], options.advance)) return usage();
      options.advance_given = true;
    } else if (arg == "--witness" && i + 1 < argc) {
      const std::string_view kind = argv[++i];
      if (kind == "tpm") options.bind_witness = klms::state::WitnessKind::kTpm;
      else if (kind == "etcd") options.bind_witness = klms::state::WitnessKind::kEtcd;
      else if (kind != "none") return usage();
    } else if (arg == "--tcti" && i + 1 < argc) {
      options.witness_config.tpm_tcti = argv[++i];
    } else if (arg == "--levels-digest" && i + 1 < argc) {
      klms::state::LevelsDigest levels{};
      if (!parse_key_id(argv[++i], levels)) return usage();
      options.levels = levels;
    } else if (arg == "--key-id" && i + 1 < argc) {
      klms::state::KeyId key{};
      if (!parse_key_id(argv[++i], key)) return usage();
      options.expected_key = key;
    } else if (arg == "--allow-network-fs") {
      options.allow_network_fs = true;
    } else if (arg == "--allow-no-file-handles") {
      options.allow_no_file_handles = true;
    } else if (!arg.empty() && arg[0] != '-' && path.empty()) {
      path = std::string(arg);
    } else {
      return usage();
    }
  }
  if (path.empty()) return usage();

  auto before = klms::state::inspect_state_file(path);
  if (!before) return fail(path, before.error());
  // Not a question of the file's content: an advance does not help.
  if (before->refused == klms::Error::kStateReadableByOthers) return fail(path, before->refused);
  if (before->refused != klms::Error::kOk && (!options.advance_given || options.advance == 0)) {
    std::cerr << "klms-state: " << path << ": " << klms::describe(before->refused)
              << "\nThe best slot left says next index " << before->next
              << "; indices beyond it may have been used. Run adopt with --advance N, N >= 1 and beyond\n"
                 "every signature that can have been made since that slot was written.\n";
    return kExitFailed;
  }
  if (options.expected_key && *options.expected_key != before->key_id) {
    return fail(path, klms::Error::kStateForeign);
  }
  explain_adoption(*before, options.advance);

  if (!confirmed_by_flag &&
      !confirmed("adopt", *before, "If the original is destroyed and no other copy will ever sign again")) {
    return kExitFailed;
  }

  auto after = klms::state::adopt_state_file(path, options);
  if (!after) return fail("adopt " + path, after.error(), path);
  std::cerr << "klms-state: adopted " << path << ": next index " << after->next << ", remaining "
            << after->remaining() << ", new instance id " << hex(after->instance_id) << "\n";
  return kExitOk;
}

// docs/state.md §5: not skippable with a blanket flag (RFC 10033 §3 "cannot
// be trivially skipped"): a typed line naming the key id's first 8 hex digits, or for scripts the
// whole key id, so that a script is written for one key on purpose.
int acknowledge(int argc, char** argv) {
  klms::state::StateOptions options;
  std::optional<klms::state::KeyId> key_id;
  std::string path;
  for (int i = 2; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--key-id" && i + 1 < argc) {
      klms::state::KeyId key{};
      if (!parse_key_id(argv[++i], key)) {
        std::cerr << "klms-state: --key-id takes the whole key id: 64 hex digits (klms-state show prints it)\n";
        return kExitUsage;
      }
      key_id = key;
    } else if (arg == "--yes" || arg == "--yes-i-destroyed-the-original") {
      std::cerr << "klms-state: acknowledge has no " << arg << ": type the confirmation it asks for, or name\n"
                   "the key with --key-id HEX (its whole key id, as klms-state show prints it)\n";
      return kExitUsage;
    } else if (arg == "--allow-network-fs") {
      options.allow_network_fs = true;
    } else if (arg == "--allow-no-file-handles") {
      options.allow_no_file_handles = true;
    } else if (!arg.empty() && arg[0] != '-' && path.empty()) {
      path = std::string(arg);
    } else {
      return usage();
    }
  }
  if (path.empty()) return usage();
  auto before = klms::state::inspect_state_file(path);
  if (!before) return fail(path, before.error());
  if (before->refused != klms::Error::kOk) return fail(path, before->refused);
  if (before->lease) {
    std::cerr << "klms-state: " << path << ": a lease is never held back at its end (lease again when it runs\n"
                 "out); acknowledge the key's own state file, from which leases are cut\n";
    return kExitFailed;
  }
  if (key_id && *key_id != before->key_id) return fail(path, klms::Error::kStateForeign);
  if (before->exhaustion_acknowledged) {
    std::cerr << "klms-state: " << path << ": already acknowledged; the key signs to its last signature\n";
    return kExitOk;
  }
  std::cerr << "Acknowledging lets the key with id\n  " << hex(before->key_id) << "\n"
            << "sign its last " << before->exhaustion_threshold() << " signatures (" << before->remaining()
            << " are left now). After the last one it can never sign again: its successor, and the\n"
               "update that moves verifiers to it, must be signed by then.\n";
  if (!key_id && !confirmed("acknowledge", *before, "If the key that replaces this one is on its way")) {
    return kExitFailed;
  }
  auto after = klms::state::acknowledge_exhaustion(path, before->key_id, options);
  if (!after) return fail("acknowledge " + path, after.error(), path);
  std::cerr << "klms-state: acknowledged " << path << ": it signs its last " << after->remaining()
            << " signatures without stopping\n";
  return kExitOk;
}

// The parent's top-tree cache goes with the lease (tools/lease_cache.h): one line saying so, or why not.
std::string carried_cache_text(const std::string& parent, const std::string& target) {
  const std::string why = klms::tools::copy_tree_cache(parent, target);
  if (why.empty()) {
    return "klms-state: copied the tree cache to " + target + ".cache: move it with the lease, and its host\n"
           "builds no tree\n";
  }
  return "klms-state: no tree cache for the lease (" + why + "): its host builds the top tree at its first signature\n";
}

int lease(int argc, char** argv) {
  klms::state::LeaseOptions options;
  std::uint64_t count = 0;
  bool count_given = false;
  std::string parent;
  std::string target;
  for (int i = 2; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--count" && i + 1 < argc) {
      if (!number_option("--count", argv[++i], count) || count == 0) return usage();
      count_given = true;
    } else if (arg == "--allow-network-fs") {
      options.allow_network_fs = true;
    } else if (arg == "--allow-no-file-handles") {
      options.allow_no_file_handles = true;
    } else if (!arg.empty() && arg[0] != '-' && parent.empty()) {
      parent = std::string(arg);
    } else if (!arg.empty() && arg[0] != '-' && target.empty()) {
      target = std::string(arg);
    } else {
      return usage();
    }
  }
  if (!count_given || parent.empty() || target.empty()) return usage();
  // A relative name is made absolute here (the lease must be named like any state file).
  if (target.front() != '/') {
    char cwd[4096];
    if (::getcwd(cwd, sizeof cwd) == nullptr) return fail(target, klms::Error::kStatePathInvalid);
    target = std::string(cwd) + "/" + target;
  }
  auto before = klms::state::inspect_state_file(parent);
  if (!before) return fail(parent, before.error());
  if (before->refused != klms::Error::kOk) return fail(parent, before->refused);
  if (!before->levels_bound()) {
    std::cerr << "klms-state: " << parent << ": this version-1 state file is not bound to its key's levels yet;\n"
                 "sign once with the key (that rewrites it as version 2), then lease.\n";
    return kExitFailed;
  }
  bool range_lost = false;
  std::uint64_t range_start = 0;
  options.range_lost = &range_lost;
  options.range_start = &range_start;
  auto made = klms::state::lease_state_file(parent, target, count, options);
  if (!made) {
    if (range_lost) {
      std::cerr << "klms-state: lease " << target << ": " << klms::describe(made.error()) << "\n"
                << "The parent " << parent << " already gave up indices [" << range_start << ", " << range_start + count
                << ") and no lease holds them: they are lost (never used twice). Remove any half-made file at\n"
                << target << " (it cannot sign) and lease again.\n";
      return kExitFailed;
    }
    if (made.error() == klms::Error::kExhaustionNotAcknowledged) {
      std::cerr << "klms-state: " << parent << ": a lease of " << count << " would take some of the key's last "
                << before->exhaustion_threshold() << " indices (" << before->remaining()
                << " left), which wait for an acknowledgement;\nrun: klms-state acknowledge "
                << state::shell_word(parent) << " (docs/state.md §5), then lease again\n";
      return kExitFailed;
    }
    if (made.error() == klms::Error::kReserveTooLarge) {
      std::cerr << "klms-state: " << parent << ": a lease of " << klms::tools::count_of(count, "index", "indices") << " is more than the "
                << before->remaining() << " left\n";
      return kExitFailed;
    }
    return fail("lease " + target + " from " + parent, made.error(),
                made.error() == klms::Error::kStateReadableByOthers ? parent : target);
  }
  std::cerr << "klms-state: leased indices [" << made->lease.lease_start << ", " << made->lease.lease_end << ") ("
            << count << ") from " << parent << " to " << target << "\n"
            << "klms-state: the parent's next index is now " << made->parent.next << ", remaining "
            << made->parent.remaining() << "\n"
            << carried_cache_text(parent, target)
            << "To sign on another host: copy " << target << " there, destroy this copy (rm), and run\n"
            << "  klms-state adopt <its path there>\n"
            << "on that host; then sign with -pkeyopt state-file:<its path there>.\n";
  (void)print_info(target, made->lease);  // a lease must be adopted on its host first: not a failure here
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const std::string_view command = argv[1];
  if (command == "show") return show(argc, argv);
  if (command == "adopt") return adopt(argc, argv);
  if (command == "discard") return discard(argc, argv);
  if (command == "lease") return lease(argc, argv);
  if (command == "acknowledge") return acknowledge(argc, argv);
  // The witness commands return kExitUsage for a usage error: print the usage then.
  const auto or_usage = [](int rc) { return rc == kExitUsage ? usage() : rc; };
  if (command == "resync") return or_usage(klms::tools::resync_command(argc, argv));
  if (command == "retire") return or_usage(klms::tools::retire_command(argc, argv));
  if (command == "backup") return or_usage(klms::tools::backup_command(argc, argv));
  if (command == "restore") return or_usage(klms::tools::restore_command(argc, argv));
  if (command == "join") return or_usage(klms::tools::join_command(argc, argv));
  if (command == "leave") return or_usage(klms::tools::leave_command(argc, argv));
  if (command == "--help" || command == "-h" || command == "help") {
    usage();
    return kExitOk;
  }
  return usage();
}
