#include "base/hex.h"
#include "tools/state_json.h"
#include "tools/signing_verdict.h"

#include <iostream>
#include <nlohmann/json.hpp>

namespace klms::tools {
namespace {

using Json = nlohmann::ordered_json;  // fields in the documented order

// The schema: its name and version (man/klms-state.1.scd "JSON OUTPUT"). Within a version fields are
// only added; a field removed, renamed or of another type makes version 2.
constexpr const char* kSchema = "klms-state-show";
constexpr int kSchemaVersion = 1;

using klms::hex;

Json error_object(Error e) { return Json{{"code", error_code(e)}, {"message", describe(e)}}; }

Json document(const std::string& path) {
  return Json{{"schema", kSchema}, {"schema_version", kSchemaVersion}, {"state_file", path}};
}

// A path need not be UTF-8: its invalid bytes become U+FFFD rather than an exception.
std::string text_of(const Json& j) { return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n"; }

std::string file_handle_text(const state::StateInfo& info) {
  if (!info.file_handle_recorded) return "not_recorded";
  return info.file_handle_changed ? "different" : "matches";
}

// kind, the counter's index (null until bound), what the counter says ("agrees", "pending",
// "behind", "unreachable", "missing", "different", "refused", "required", "skips", "no_module") and its high-water mark.
Json witness_json(const state::StateInfo& info) {
  const state::WitnessStatus& w = info.witness;
  if (w.record.kind == state::WitnessKind::kNone) return Json(nullptr);
  static const char* const kStates[] = {"none",    "required",  "agrees",  "pending", "behind",
                                        "unreachable", "missing", "different", "refused", "skips",
                                        "no_module"};
  Json j;
  j["kind"] = state::witness_kind_name(w.record.kind);
  j["nv_index"] = w.record.nv_index != 0 ? Json(w.record.nv_index) : Json(nullptr);
  j["state"] = kStates[static_cast<unsigned>(w.state)];
  const bool read = w.state == state::WitnessState::kAgrees || w.state == state::WitnessState::kPending ||
                    w.state == state::WitnessState::kBehind;
  j["high_water"] = read ? Json(w.high_water) : Json(nullptr);
  j["behind_by"] = w.state == state::WitnessState::kBehind ? Json(w.difference) : Json(0);
  j["message"] = w.message.empty() ? Json(nullptr) : Json(w.message);
  if (w.record.kind == state::WitnessKind::kTpm) {
    // docs/state.md "One binding, one name": false for a counter adopt or resync must re-bind.
    j["per_binding_policy"] = w.record.tpm_policy;
    j["read_as_owner"] = w.read_as_owner;
  }
  if (w.record.kind == state::WitnessKind::kEtcd) {
    // The fleet (docs/fleet.md): this host's record and what the cluster said of the key.
    const state::FleetBinding& f = w.record.fleet;
    char host[16];
    std::snprintf(host, sizeof host, "%08x", f.host_id);
    Json fleet;
    fleet["host_id"] = host;
    fleet["block_end"] = f.block_end;
    fleet["revision_seen"] = f.revision_seen;
    const bool answered = w.fleet_revision != 0;
    fleet["counter"] = answered ? Json(w.fleet_counter) : Json(nullptr);
    fleet["host_next"] = answered ? Json(w.fleet_host_next) : Json(nullptr);
    fleet["hosts"] = answered ? Json(w.fleet_hosts) : Json(nullptr);
    fleet["skips"] = w.state == state::WitnessState::kSkips ? Json(w.difference) : Json(0);
    j["fleet"] = fleet;
  }
  return j;
}

}  // namespace

const char* error_code(Error error) noexcept {
  switch (error) {
    case Error::kOk: return "ok";
    case Error::kUnknownLmsType: return "unknown_lms_type";
    case Error::kUnknownOtsType: return "unknown_ots_type";
    case Error::kParameterMismatch: return "parameter_mismatch";
    case Error::kBadLevels: return "bad_levels";
    case Error::kMalformedPublicKey: return "malformed_public_key";
    case Error::kMalformedSignature: return "malformed_signature";
    case Error::kMalformedPrivateKey: return "malformed_private_key";
    case Error::kBadSeedLength: return "bad_seed_length";
    case Error::kVerifyFailed: return "verify_failed";
    case Error::kUnknownXmssType: return "unknown_xmss_type";
    case Error::kBackendMismatch: return "backend_mismatch";
    case Error::kStateMissing: return "state_missing";
    case Error::kStateDirectoryMissing: return "state_directory_missing";
    case Error::kStateUnreadable: return "state_unreadable";
    case Error::kStateTruncated: return "state_truncated";
    case Error::kStateCorrupt: return "state_corrupt";
    case Error::kStateForeign: return "state_foreign";
    case Error::kStateCopied: return "state_copied";
    case Error::kStateExists: return "state_exists";
    case Error::kStateInsecureDirectory: return "state_insecure_directory";
    case Error::kStateInsecureFile: return "state_insecure_file";
    case Error::kStateNetworkFs: return "state_network_fs";
    case Error::kStateWriteFailed: return "state_write_failed";
    case Error::kStatePoisoned: return "state_poisoned";
    case Error::kStateLockFailed: return "state_lock_failed";
    case Error::kExhausted: return "exhausted";
    case Error::kIndexOverflow: return "index_overflow";
    case Error::kLeaseConsumed: return "lease_consumed";
    case Error::kSeededKeyRefused: return "seeded_key_refused";
    case Error::kStateNotAStateFile: return "state_not_a_state_file";
    case Error::kStateUnsupportedVersion: return "state_unsupported_version";
    case Error::kStateDamaged: return "state_damaged";
    case Error::kStateParamsMismatch: return "state_params_mismatch";
    case Error::kStateUnbound: return "state_unbound";
    case Error::kStateReadOnlyFs: return "state_read_only_fs";
    case Error::kStatePermissionDenied: return "state_permission_denied";
    case Error::kStatePathInvalid: return "state_path_invalid";
    case Error::kStateNameTooLong: return "state_name_too_long";
    case Error::kReserveTooLarge: return "reserve_too_large";
    case Error::kExhaustionNotAcknowledged: return "exhaustion_not_acknowledged";
    case Error::kForeignProcess: return "foreign_process";
    case Error::kCancelled: return "cancelled";
    case Error::kStateBehindWitness: return "state_behind_witness";
    case Error::kWitnessRequired: return "witness_required";
    case Error::kWitnessUnsupported: return "witness_unsupported";
    case Error::kWitnessUnreachable: return "witness_unreachable";
    case Error::kWitnessModuleMissing: return "witness_module_missing";
    case Error::kWitnessMissing: return "witness_missing";
    case Error::kWitnessMismatch: return "witness_mismatch";
    case Error::kWitnessAuthFailed: return "witness_auth_failed";
    case Error::kWitnessNoSpace: return "witness_no_space";
    case Error::kWitnessBudget: return "witness_budget";
    case Error::kWitnessSecretMissing: return "witness_secret_missing";
    case Error::kWitnessSecretInsecure: return "witness_secret_insecure";
    case Error::kWitnessFailed: return "witness_failed";
    case Error::kWitnessWentBackwards: return "witness_went_backwards";
    case Error::kWitnessRecreated: return "witness_recreated";
    case Error::kWitnessOtherCluster: return "witness_other_cluster";
    case Error::kWitnessOlderRevision: return "witness_older_revision";
    case Error::kWitnessDenied: return "witness_denied";
    case Error::kWitnessLeaseUnsupported: return "witness_lease_unsupported";
    case Error::kStateMixedBlocks: return "state_mixed_blocks";
    case Error::kStateReadableByOthers: return "state_readable_by_others";
    case Error::kStateNoFileHandles: return "state_no_file_handles";
    case Error::kStateNameIsCache: return "state_name_is_cache";
    case Error::kCacheUnusable: return "cache_unusable";
    case Error::kCacheWriteFailed: return "cache_write_failed";
    case Error::kInvalidArgument: return "invalid_argument";
    case Error::kOutOfMemory: return "out_of_memory";
    case Error::kInternal: return "internal";
  }
  return "unknown";
}

std::string state_json(const std::string& path, const state::StateInfo& info) {
  const std::uint64_t start = info.lease ? info.lease_start : 0;
  const std::uint64_t end = info.max_signatures;
  const bool refused = info.refused != Error::kOk;
  Json j = document(path);
  j["format_version"] = info.format_version;
  // What show's exit status says too (tools/signing_verdict.h).
  j["signable"] = signing_refusal(path, info) == Error::kOk;
  j["refused"] = refused ? error_object(info.refused) : Json(nullptr);
  j["kind"] = info.lease ? "lease" : "key";
  j["key_id"] = hex(info.key_id);
  j["levels_digest"] = info.levels_bound() ? Json(hex(info.levels_digest)) : Json(nullptr);
  j["next_index"] = info.next;
  j["max_signatures"] = info.max_signatures;
  j["remaining"] = info.remaining();
  j["exhausted"] = info.exhausted();
  j["range"] = Json{{"start", start}, {"end", end}};
  j["lease"] = info.lease ? Json{{"depth", info.lease_depth}, {"parent_instance_id", hex(info.parent_instance_id)}}
                          : Json(nullptr);
  // docs/state.md §5: the one threshold pkey -text and signing use (state/exhaustion.h).
  j["exhaustion"] = Json{{"threshold", info.exhaustion_threshold()},
                         {"below_threshold", info.below_exhaustion_threshold()},
                         {"low_signatures_warning", info.low_signatures_warning},
                         {"acknowledged", info.exhaustion_acknowledged},
                         {"awaits_acknowledgement", info.awaits_acknowledgement()}};
  j["looks_copied"] = info.looks_copied();
  j["instance_id"] = hex(info.instance_id);
  j["generation"] = info.generation;
  j["last_reserving_pid"] = info.reserving_pid;
  j["file_identity"] = Json{{"recorded", Json{{"device", info.device}, {"inode", info.inode}}},
                            {"actual", Json{{"device", info.actual_device}, {"inode", info.actual_inode}}},
                            {"file_handle", file_handle_text(info)}};
  // The rollback witness (docs/state.md "The witness"): null for a file that names none.
  j["witness"] = witness_json(info);
  return text_of(j);
}

std::string state_error_json(const std::string& path, Error error) {
  Json j = document(path);
  j["error"] = error_object(error);
  return text_of(j);
}

int show_state_json(const std::string& path) {
  auto info = state::inspect_state_file(path, state::StateOptions{});
  if (!info) {
    std::cout << state_error_json(path, info.error());
    std::cerr << "klms-state: " << path << ": " << describe(info.error()) << "\n";
    return 1;
  }
  std::cout << state_json(path, *info);
  return signing_refusal(path, *info) == Error::kOk ? 0 : 1;
}

}  // namespace klms::tools
