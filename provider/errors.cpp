#include "provider/errors.h"

#include <cstdarg>
#include <cstdio>

#include "state/remedy.h"

namespace klms::provider {

const OSSL_ITEM* reason_strings() noexcept {
  static const OSSL_ITEM table[] = {
      {kReasonInvalidArgument, const_cast<char*>("invalid argument")},
      {kReasonUnknownParameterSet, const_cast<char*>("unknown HSS/LMS parameter set")},
      {kReasonParameterMismatch, const_cast<char*>("inconsistent HSS/LMS parameter sets")},
      {kReasonBadParameter, const_cast<char*>("bad key generation or signature parameter")},
      {kReasonMalformedKey, const_cast<char*>("malformed HSS/LMS key")},
      {kReasonMalformedSignature, const_cast<char*>("malformed HSS/LMS signature")},
      {kReasonVerifyFailed, const_cast<char*>("HSS/LMS signature verification failed")},
      {kReasonDigestNotAllowed, const_cast<char*>("HSS/LMS signs the message itself: digest not allowed")},
      {kReasonStateMissing, const_cast<char*>("state file missing")},
      {kReasonStateDirectoryMissing, const_cast<char*>("state file directory does not exist")},
      {kReasonStateUnreadable, const_cast<char*>("state file unreadable")},
      {kReasonStateTruncated, const_cast<char*>("state file truncated")},
      {kReasonStateCorrupt, const_cast<char*>("state file corrupt")},
      {kReasonStateForeign, const_cast<char*>("state file belongs to another key")},
      {kReasonStateCopied, const_cast<char*>("state file copied, restored or moved")},
      {kReasonStateExists, const_cast<char*>("state file already exists")},
      {kReasonStateInsecure, const_cast<char*>("state file or directory not private")},
      {kReasonStateNetworkFs, const_cast<char*>("state file on a network file system")},
      {kReasonStateWriteFailed, const_cast<char*>("state file write failed")},
      {kReasonStatePoisoned, const_cast<char*>("state file unusable after a failed write")},
      {kReasonStateLocked, const_cast<char*>("cannot lock state file")},
      {kReasonExhausted, const_cast<char*>("HSS/LMS key exhausted")},
      {kReasonLeaseConsumed, const_cast<char*>("signature already produced by this operation")},
      {kReasonSeededKey, const_cast<char*>("seeded key refused")},
      {kReasonBufferTooSmall, const_cast<char*>("output buffer too small")},
      {kReasonNotPrivateKey, const_cast<char*>("not a private key")},
      {kReasonNoStateFile, const_cast<char*>("no state file")},
      {kReasonKeygenCancelled, const_cast<char*>("key generation cancelled")},
      {kReasonSelfTestFailed, const_cast<char*>("self-test failed")},
      {kReasonDecryptFailed, const_cast<char*>("private key decryption failed")},
      {kReasonEncryptFailed, const_cast<char*>("private key encryption failed")},
      {kReasonOutOfMemory, const_cast<char*>("out of memory")},
      {kReasonInternal, const_cast<char*>("internal error")},
      {kReasonStateDamaged, const_cast<char*>("state file damaged: next index unknown")},
      {kReasonStateParamsMismatch, const_cast<char*>("key's HSS parameter sets do not match its state file")},
      {kReasonStateReadOnly, const_cast<char*>("state file on a read-only file system")},
      {kReasonStatePermission, const_cast<char*>("state file permission denied")},
      {kReasonStatePathInvalid, const_cast<char*>("invalid state file path")},
      {kReasonStateNameTooLong, const_cast<char*>("state file name too long")},
      {kReasonReserveTooLarge, const_cast<char*>("reservation too large")},
      {kReasonForeignProcess, const_cast<char*>("signing state belongs to another process")},
      {kReasonStateUnbound, const_cast<char*>("state file not bound to the key's lower levels")},
      {kReasonStateBehindWitness, const_cast<char*>("state file behind its witness (restored or rolled back)")},
      {kReasonWitnessRequired, const_cast<char*>("state file must be bound to a witness on this host")},
      {kReasonWitnessUnreachable, const_cast<char*>("state file witness unreachable")},
      {kReasonWitnessRefused, const_cast<char*>("state file witness refused")},
      {kReasonStateMixedBlocks, const_cast<char*>("state file holds blocks of different state files")},
      {kReasonStateNoFileHandles, const_cast<char*>("state file on a file system without file handles")},
      {kReasonStateNameIsCache, const_cast<char*>("state file name is a tree cache's name")},
      {kReasonExhaustionNotAcknowledged, const_cast<char*>("key nearly exhausted: acknowledge with klms-state acknowledge")},
      {kReasonWitnessModuleMissing, const_cast<char*>("state file witness module cannot be loaded")},
      {0, nullptr},
  };
  return table;
}

void raise_error(const ProviderContext* ctx, int reason, const char* file, int line, const char* func,
                 const char* format, ...) noexcept {
  if (ctx == nullptr || ctx->core.new_error == nullptr) return;
  ctx->core.new_error(ctx->handle);
  if (ctx->core.set_error_debug != nullptr) ctx->core.set_error_debug(ctx->handle, file, line, func);
  if (ctx->core.vset_error != nullptr) {
    va_list args;
    va_start(args, format);
    ctx->core.vset_error(ctx->handle, static_cast<std::uint32_t>(reason), format, args);
    va_end(args);
  }
}

static int reason_for(klms::Error e) noexcept {
  using klms::Error;
  switch (e) {
    case Error::kUnknownLmsType:
    case Error::kUnknownOtsType:
    case Error::kUnknownXmssType: return kReasonUnknownParameterSet;
    case Error::kParameterMismatch:
    case Error::kBadLevels: return kReasonParameterMismatch;
    case Error::kMalformedPublicKey:
    case Error::kMalformedPrivateKey: return kReasonMalformedKey;
    case Error::kMalformedSignature: return kReasonMalformedSignature;
    case Error::kBadSeedLength: return kReasonBadParameter;
    case Error::kVerifyFailed: return kReasonVerifyFailed;
    case Error::kStateMissing: return kReasonStateMissing;
    case Error::kStateDirectoryMissing: return kReasonStateDirectoryMissing;
    case Error::kStateUnreadable: return kReasonStateUnreadable;
    case Error::kStateTruncated: return kReasonStateTruncated;
    case Error::kStateCorrupt:
    case Error::kStateNotAStateFile:
    case Error::kStateUnsupportedVersion: return kReasonStateCorrupt;
    case Error::kStateForeign: return kReasonStateForeign;
    case Error::kStateCopied: return kReasonStateCopied;
    case Error::kStateExists: return kReasonStateExists;
    case Error::kStateInsecureDirectory:
    case Error::kStateInsecureFile:
    case Error::kStateReadableByOthers: return kReasonStateInsecure;
    case Error::kStateMixedBlocks: return kReasonStateMixedBlocks;
    case Error::kStateNoFileHandles: return kReasonStateNoFileHandles;
    case Error::kStateNameIsCache: return kReasonStateNameIsCache;
    case Error::kStateNetworkFs: return kReasonStateNetworkFs;
    case Error::kStateWriteFailed: return kReasonStateWriteFailed;
    case Error::kStatePoisoned: return kReasonStatePoisoned;
    case Error::kStateLockFailed: return kReasonStateLocked;
    case Error::kExhausted:
    case Error::kIndexOverflow: return kReasonExhausted;
    case Error::kLeaseConsumed: return kReasonLeaseConsumed;
    case Error::kSeededKeyRefused: return kReasonSeededKey;
    case Error::kInvalidArgument: return kReasonInvalidArgument;
    case Error::kStateDamaged: return kReasonStateDamaged;
    case Error::kStateParamsMismatch: return kReasonStateParamsMismatch;
    case Error::kStateReadOnlyFs: return kReasonStateReadOnly;
    case Error::kStatePermissionDenied: return kReasonStatePermission;
    case Error::kStatePathInvalid: return kReasonStatePathInvalid;
    case Error::kStateNameTooLong: return kReasonStateNameTooLong;
    case Error::kReserveTooLarge: return kReasonReserveTooLarge;
    case Error::kExhaustionNotAcknowledged: return kReasonExhaustionNotAcknowledged;
    case Error::kForeignProcess: return kReasonForeignProcess;
    case Error::kStateUnbound: return kReasonStateUnbound;
    case Error::kCancelled: return kReasonKeygenCancelled;
    case Error::kStateBehindWitness: return kReasonStateBehindWitness;
    case Error::kWitnessRequired: return kReasonWitnessRequired;
    case Error::kWitnessUnreachable: return kReasonWitnessUnreachable;
    case Error::kWitnessModuleMissing: return kReasonWitnessModuleMissing;
    case Error::kWitnessUnsupported:
    case Error::kWitnessMissing:
    case Error::kWitnessMismatch:
    case Error::kWitnessAuthFailed:
    case Error::kWitnessNoSpace:
    case Error::kWitnessBudget:
    case Error::kWitnessSecretMissing:
    case Error::kWitnessSecretInsecure:
    case Error::kWitnessFailed:
    case Error::kWitnessWentBackwards:
    case Error::kWitnessRecreated:
    case Error::kWitnessOtherCluster:
    case Error::kWitnessOlderRevision:
    case Error::kWitnessDenied:
    case Error::kWitnessLeaseUnsupported: return kReasonWitnessRefused;
    case Error::kOutOfMemory: return kReasonOutOfMemory;
    default: return kReasonInternal;
  }
}

void raise_lms_error(const ProviderContext* ctx, klms::Error error, const char* file, int line, const char* func,
                     const char* what) noexcept {
  raise_error(ctx, reason_for(error), file, line, func, "%s: %s", what, klms::describe(error));
}

void raise_state_error(const ProviderContext* ctx, klms::Error error, const char* file, int line, const char* func,
                       const std::string& what, const std::string& path) noexcept {
  const std::string remedy = state::remedy_of(error, path);
  raise_error(ctx, reason_for(error), file, line, func, "%s: %s%s", what.c_str(), klms::describe(error),
              remedy.c_str());
}

}  // namespace klms::provider
