#include "provider/key_text.h"

#include <cstdio>

#include "state/remedy.h"

namespace klms::provider {
namespace {

void append_hex_block(std::string& out, const unsigned char* data, std::size_t len) {
  char buf[4];
  for (std::size_t i = 0; i < len; ++i) {
    if (i % 16 == 0) out += "    ";
    std::snprintf(buf, sizeof buf, "%02x", data[i]);
    out += buf;
    out += (i + 1 == len) ? "" : ":";
    if (i % 16 == 15 || i + 1 == len) out += "\n";
  }
}

std::string hex(const unsigned char* data, std::size_t len) {
  std::string out;
  char buf[3];
  for (std::size_t i = 0; i < len; ++i) {
    std::snprintf(buf, sizeof buf, "%02x", data[i]);
    out += buf;
  }
  return out;
}

// "witness: tpm counter 0x01384c00, agrees (high-water 12)" and the like.
std::string witness_text(const state::StateInfo& info) {
  const state::WitnessStatus& w = info.witness;
  std::string out = std::string("witness: ") + state::witness_kind_name(w.record.kind);
  if (w.record.nv_index != 0) {
    char index[16];
    std::snprintf(index, sizeof index, "0x%08x", w.record.nv_index);
    out += std::string(" counter ") + index;
  }
  if (w.record.kind == state::WitnessKind::kEtcd) {
    char host[16];
    std::snprintf(host, sizeof host, "%08x", w.record.fleet.host_id);
    out += std::string(" host ") + host + ", block end " + std::to_string(w.record.fleet.block_end);
  }
  out += std::string(", ") + state::witness_state_name(w.state);
  if (w.state == state::WitnessState::kAgrees) out += " (high-water " + std::to_string(w.high_water) + ")";
  const std::string count = std::to_string(w.difference) + (w.difference == 1 ? " index" : " indices");
  if (w.state == state::WitnessState::kSkips) out += ": " + count;
  if (w.state == state::WitnessState::kBehind || w.state == state::WitnessState::kPending) {
    out += ": " + count + " (high-water " + std::to_string(w.high_water) + ")";
  }
  return out + "\n";
}

// RFC 10033 §3: warn before a stateful key runs out, with the threshold every tool uses (the T
// the state file records, at most a tenth of the key: docs/state.md §5), and say whether signing
// waits for the acknowledgement.
std::string low_signatures_text(const stateful::StateSummary& s, const std::string& path) {
  if (!s.have_info) return {};
  const std::uint64_t threshold = s.info.exhaustion_threshold();
  if (threshold == 0 || s.remaining > threshold) return {};
  std::string out = "WARNING: only " + std::to_string(s.remaining) + " signature" + (s.remaining == 1 ? "" : "s") +
                    " left (threshold " + std::to_string(threshold) + ", low_signatures_warning = " +
                    std::to_string(s.info.low_signatures_warning) + "): prepare the key that replaces this one now\n";
  if (s.info.lease) return out;  // a lease signs to its end: lease again
  if (s.info.exhaustion_acknowledged) return out + "exhaustion: acknowledged (the key signs to its last signature)\n";
  return out + "exhaustion: NOT ACKNOWLEDGED: signing refuses the last " + std::to_string(threshold) +
         " until you run: klms-state acknowledge " + state::shell_word(path) + "\n";
}

// The scheme's lines: its parameter sets and public values, then the raw public key and key id.
std::string public_text(const KeyMaterial& key, bool priv) {
  std::string out;
  if (key.scheme == KeyScheme::kHss) {
    out += priv ? "HSS/LMS Private-Key:\n" : "HSS/LMS Public-Key:\n";
    out += "levels: " + std::to_string(key.levels) + "\n";
    if (key.private_key) {
      for (std::size_t i = 0; i < key.private_key->levels.size(); ++i) {
        const lms::LevelParams& l = key.private_key->levels[i];
        out += "level " + std::to_string(i + 1) + ": " + std::string(l.lms->name) + " / " + std::string(l.ots->name) + "\n";
      }
    } else {
      out += "level 1: " + std::string(key.top.lms->name) + " / " + std::string(key.top.ots->name) + "\n";
    }
    out += "I: " + hex(key.public_key.data() + 12, lms::kIdentifierBytes) + "\n";
  } else {
    const xmss::Params& p = *key.xmss;
    out += std::string(key.identity().name) + (priv ? " Private-Key:\n" : " Public-Key:\n");
    char code[16];
    std::snprintf(code, sizeof code, "0x%08x", p.oid);
    out += "parameter set: " + std::string(p.name) + " (type " + code + ")\n";
    out += "height: " + std::to_string(p.h) + ", layers: " + std::to_string(p.d) + ", w: " + std::to_string(p.w()) +
           ", n: " + std::to_string(p.n) + "\n";
    out += "SEED: " + hex(key.public_key.data() + 4 + p.n, p.n) + "\n";
  }
  out += "public key:\n";
  append_hex_block(out, key.public_key.data(), key.public_key.size());
  // The id `klms-state show` prints (SHA-256 of the raw public key, docs/state.md §16): the same
  // hex in both outputs matches a key to its state file.
  out += "key id: " + hex(key.key_id.data(), key.key_id.size()) + "\n";
  return out;
}

}  // namespace

std::string key_text(const KeyMaterial& key, bool include_private, const state::StateOptions& options) {
  const bool priv = include_private && key.has_private();
  std::string out = public_text(key, priv);
  if (!priv) return out;

  const stateful::PrivateKey& p = *key.stateful_private();
  const std::uint64_t max = key.max_signatures();
  out += "seeded: " + std::string(p.seeded ? "yes (generated from a supplied seed or identifier)" : "no") + "\n";
  out += "state file: " + p.state_file + "\n";
  out += std::string(key.scheme == KeyScheme::kHss ? "levels digest: " : "parameters digest: ") +
         hex(key.params_digest.data(), key.params_digest.size()) + "\n";
  // The same checks signing runs: "ok" only for a file signing would use.
  const stateful::StateSummary s = stateful::summarize_state(key.signing_key(), options);
  if (s.error == klms::Error::kStateMissing) {
    out += "state: missing\n";
  } else if (s.error == klms::Error::kStateCopied) {
    out += "state: COPIED OR RESTORED (refused for signing; see klms-state adopt)\n";
  } else if (s.error != klms::Error::kOk) {
    out += std::string("state: REFUSED FOR SIGNING: ") + klms::describe(s.error) +
           state::remedy_of(s.error, p.state_file) + "\n";
  } else if (s.have_info && s.remaining == 0) {
    out += "state: EXHAUSTED (no signatures left: the key can never sign again; retire it)\n";
  } else {
    out += "state: ok\n";
    out += low_signatures_text(s, p.state_file);
  }
  if (s.have_info && s.info.lease) {
    // The key's state file is a lease (docs/state.md "Index leases"): it signs its range only.
    out += "state file kind: lease of indices [" + std::to_string(s.info.lease_start) + ", " +
           std::to_string(s.info.lease_end) + "), depth " + std::to_string(s.info.lease_depth) + "\n";
  }
  if (s.have_info && s.info.witness.record.kind != state::WitnessKind::kNone) {
    out += witness_text(s.info);
  }
  if (s.have_info) {
    out += "next index: " + std::to_string(s.info.next) + "\n";
    out += "remaining signatures: " + std::to_string(s.remaining) + "\n";
    // docs/state.md §5: where signing stops for the acknowledgement (a key's own file only).
    const std::uint64_t threshold = s.info.exhaustion_threshold();
    if (threshold != 0 && !s.info.lease && !s.info.exhaustion_acknowledged && s.remaining != 0) {
      out += "signatures before the acknowledgement stop: " +
             std::to_string(s.remaining > threshold ? s.remaining - threshold : 0) + " (then the last " +
             std::to_string(threshold) + " wait for klms-state acknowledge; signing warns from " +
             std::to_string(2 * threshold) + " left)\n";
    }
  }
  out += "maximum signatures: " + std::to_string(max) + (max == ~std::uint64_t{0} ? " (2^64 - 1)" : "") + "\n";
  return out;
}

}  // namespace klms::provider
