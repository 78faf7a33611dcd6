#include "base/error.h"

namespace klms {

const char* describe(Error e) noexcept {
  switch (e) {
    case Error::kOk: return "success";
    case Error::kUnknownLmsType: return "unknown LMS parameter set";
    case Error::kUnknownOtsType: return "unknown LM-OTS parameter set";
    case Error::kParameterMismatch: return "LMS and LM-OTS parameter sets do not match";
    case Error::kBadLevels: return "HSS needs 1 to 8 levels";
    case Error::kMalformedPublicKey: return "malformed HSS/LMS public key";
    case Error::kMalformedSignature: return "malformed HSS/LMS signature";
    case Error::kMalformedPrivateKey: return "malformed or foreign HSS/LMS private key";
    case Error::kBadSeedLength: return "seed or identifier has the wrong length";
    case Error::kVerifyFailed: return "signature verification failed";
    case Error::kUnknownXmssType:
      return "unknown XMSS parameter set: no type code, or no combination of hash, n, h and w, that this build "
             "has (docs/xmss.md lists them)";
    case Error::kBackendMismatch:
      return "the hash backend computes another hash family than the parameter set names: pass a backend of "
             "the set's family (or none, for the fastest)";
    case Error::kStateMissing: return "state file missing";
    case Error::kStateDirectoryMissing: return "the state file's directory does not exist";
    case Error::kStateUnreadable: return "state file unreadable";
    case Error::kStateTruncated: return "state file truncated";
    case Error::kStateCorrupt: return "state file corrupt";
    case Error::kStateForeign: return "state file belongs to another key";
    case Error::kStateCopied:
      return "state file was copied, restored or moved (if it is the only copy that will ever sign, "
             "declare it so with `klms-state adopt`)";
    case Error::kStateExists: return "state file already exists";
    case Error::kStateInsecureDirectory: return "state directory is writable by group or others";
    case Error::kStateInsecureFile: return "state file is not a private regular file";
    case Error::kStateNetworkFs: return "state file is on a network file system";
    case Error::kStateWriteFailed: return "state file write or fsync failed";
    case Error::kStatePoisoned: return "state handle unusable after a failed write";
    case Error::kStateLockFailed: return "cannot lock the state file";
    case Error::kExhausted: return "key exhausted: no signatures left";
    case Error::kIndexOverflow: return "signature index would overflow";
    case Error::kLeaseConsumed: return "this signing operation has already produced its signature";
    case Error::kSeededKeyRefused: return "key was generated from a supplied seed; set KLMS_ALLOW_SEEDED_KEYS=1 to sign with it";
    case Error::kStateNotAStateFile: return "not a state file";
    case Error::kStateUnsupportedVersion: return "state file format version not supported";
    case Error::kStateDamaged:
      return "state file damaged: a slot is unreadable and no crash explains it, so the next index is unknown "
             "(`klms-state show` tells more; recover with `klms-state adopt --advance N`, N beyond any index that "
             "can have been used)";
    case Error::kStateParamsMismatch:
      return "the key's HSS parameter sets differ from those its state file was created for (altered key file?)";
    case Error::kStateUnbound:
      return "the state file predates format 2 and does not record this multi-level key's lower levels; after "
             "checking the key file is the original, bind it with `klms-state adopt --levels-digest HEX` "
             "(the digest `openssl pkey -text` prints)";
    case Error::kStateReadOnlyFs: return "state file is on a read-only file system";
    case Error::kStatePermissionDenied: return "permission denied opening the state file for writing";
    case Error::kStatePathInvalid:
      return "state file path must be absolute, name a file (not end in '/'), and have no control characters";
    case Error::kStateNameTooLong:
      return "state file name too long: its tree cache names would exceed the file system's name limit";
    case Error::kReserveTooLarge: return "reservation larger than the signatures left or than the limit";
    case Error::kExhaustionNotAcknowledged:
      return "key nearly exhausted: its last signatures are kept until someone acknowledges that it is running "
             "out (prepare the key that replaces it); run `klms-state acknowledge STATE` (`klms-state show` "
             "tells how many are left), then sign again";
    case Error::kForeignProcess:
      return "signing state made by another process: a forked or cloned child cannot continue its parent's "
             "signing operation, reservation or lease";
    case Error::kCancelled: return "cancelled by the caller";
    case Error::kStateBehindWitness:
      return "state file is behind its witness: it was restored, copied or rolled back (or the TPM restarted "
             "without an orderly shutdown), and the indices in between may have been used; "
             "`klms-state resync STATE` moves it past the witness (`klms-state show` tells how far)";
    case Error::kWitnessRequired:
      return "state file must be bound to a witness on the host that signs: run `klms-state adopt --witness tpm "
             "STATE` there";
    case Error::kWitnessUnsupported: return "state file names a witness this build does not support";
    case Error::kWitnessModuleMissing:
      return "the witness's module cannot be loaded, so nothing is made or signed with it (install the "
             "klms-witness-tpm or klms-witness-etcd package, or name the directory that holds it with "
             "KLMS_WITNESS_DIR or witness_dir: docs/install.md \"Witness modules\")";
    case Error::kWitnessUnreachable:
      return "the state file's witness cannot be reached, so nothing is signed (is the TPM at tpm_tcti / "
             "KLMS_TPM_TCTI up? for a fleet key: is a quorum of the etcd cluster at etcd_endpoints / "
             "KLMS_ETCD_ENDPOINTS up?)";
    case Error::kWitnessMissing:
      return "the state file's TPM counter does not exist on this TPM (another host, a released counter, or a "
             "cleared TPM): restore with `klms-state restore` and a high-water mark (docs/backup.md); for a fleet "
             "key, the key's counter or this host's record is gone from the etcd cluster (another etcd_prefix? "
             "the host left?): join again with `klms-state join` (docs/fleet.md)";
    case Error::kWitnessMismatch:
      return "the TPM counter is not the one this state file is bound to, or it moved further than this file's "
             "own write explains (another writer?): nothing is signed; see `klms-state show`";
    case Error::kWitnessAuthFailed:
      return "the witness refused the authorization: for a TPM, the state directory's klms-witness.secret is not "
             "the one the counter was made with; for etcd, etcd_user / KLMS_ETCD_USER and its password file";
    case Error::kWitnessNoSpace:
      return "the TPM has no free NV counter: retire unused witnessed keys (`klms-state retire`) or use witness:none";
    case Error::kWitnessBudget:
      return "the key has more signatures than the TPM counter's NV write budget allows (tpm_nv_write_budget; "
             "docs/state.md \"TPM endurance\"): choose a smaller key or raise the budget";
    case Error::kWitnessSecretMissing:
      return "the state directory has no klms-witness.secret, so the key's TPM counter cannot be advanced "
             "(restore the file from the directory's backup, or re-bind with `klms-state adopt --witness tpm`)";
    case Error::kWitnessSecretInsecure:
      return "klms-witness.secret is unreadable, not owned by this user, readable by others or not 32 bytes";
    case Error::kWitnessFailed: return "the witness refused the operation (the TPM, or the etcd cluster)";
    case Error::kWitnessWentBackwards:
      return "the fleet's records in etcd went backwards: the key's counter or this host's record is below what "
             "was already handed out (rewritten lower, or the cluster restored from a snapshot); nothing is "
             "signed: see docs/fleet.md \"Disaster restore\"";
    case Error::kWitnessRecreated:
      return "the fleet key's counter or this host's record in etcd was deleted and created again, so it "
             "no longer witnesses what was handed out; nothing is signed (docs/fleet.md \"What is refused\")";
    case Error::kWitnessOtherCluster:
      return "the etcd cluster answering is not the one this host joined (another cluster id): check "
             "etcd_endpoints / KLMS_ETCD_ENDPOINTS";
    case Error::kWitnessOlderRevision:
      return "the etcd cluster answered with an older revision than this host has seen: it was restored from a "
             "snapshot, and indices handed out since may be handed out again; nothing is signed until the "
             "disaster-restore procedure ran (`klms-state resync`, docs/fleet.md \"Disaster restore\")";
    case Error::kWitnessDenied:
      return "the etcd cluster's access control refused the user (etcd_user / KLMS_ETCD_USER needs readwrite "
             "on the key's prefix, etcd_prefix): nothing was taken";
    case Error::kWitnessLeaseUnsupported:
      return "a fleet key's state file is not leased: give the other host its own state file with "
             "`klms-state join KEY STATE` (docs/fleet.md)";
    case Error::kStateMixedBlocks:
      return "state file holds blocks of different state files (another key, a lease and its parent, or "
             "another instance): recovery cannot tell which one is this file's, and refuses";
    case Error::kStateReadableByOthers:
      return "state file is readable by group or others: anyone who can open it can hold its lock and stop "
             "signing (make it private with chmod 600)";
    case Error::kStateNoFileHandles:
      return "state file is on a file system without file handles (overlayfs, ...), where a copy-up or a "
             "reused image layer cannot be detected; a witness makes such a file safe, or accept the risk with "
             "the configuration key allow_no_file_handles = 1 (klms-state: --allow-no-file-handles)";
    case Error::kStateNameIsCache:
      return "state file name is one a tree cache uses (<state file>.cache, <state file>.cache.levelN): "
             "another state file's cache writes would destroy it; choose another name";
    case Error::kCacheUnusable: return "tree cache damaged or foreign";
    case Error::kCacheWriteFailed: return "cannot write the tree cache";
    case Error::kInvalidArgument: return "invalid argument";
    case Error::kOutOfMemory: return "out of memory";
    case Error::kInternal: return "internal error";
  }
  return "unknown error";
}

}  // namespace klms
