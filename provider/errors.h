// The provider's own error reasons, raised into OpenSSL's error queue with a specific message.
#pragma once

#include <openssl/core.h>

#include <string>

#include "base/error.h"
#include "provider/provider_context.h"

namespace klms::provider {

// Reason codes (library "klms"); 1..N, and describe() strings in errors.cpp.
enum Reason : int {
  kReasonNone = 0,
  kReasonInvalidArgument = 1,
  kReasonUnknownParameterSet,
  kReasonParameterMismatch,
  kReasonBadParameter,
  kReasonMalformedKey,
  kReasonMalformedSignature,
  kReasonVerifyFailed,
  kReasonDigestNotAllowed,
  kReasonStateMissing,
  kReasonStateDirectoryMissing,
  kReasonStateUnreadable,
  kReasonStateTruncated,
  kReasonStateCorrupt,
  kReasonStateForeign,
  kReasonStateCopied,
  kReasonStateExists,
  kReasonStateInsecure,
  kReasonStateNetworkFs,
  kReasonStateWriteFailed,
  kReasonStatePoisoned,
  kReasonStateLocked,
  kReasonExhausted,
  kReasonLeaseConsumed,
  kReasonSeededKey,
  kReasonBufferTooSmall,
  kReasonNotPrivateKey,
  kReasonNoStateFile,
  kReasonKeygenCancelled,
  kReasonSelfTestFailed,
  kReasonDecryptFailed,
  kReasonEncryptFailed,
  kReasonOutOfMemory,
  kReasonInternal,
  kReasonStateDamaged,
  kReasonStateParamsMismatch,
  kReasonStateReadOnly,
  kReasonStatePermission,
  kReasonStatePathInvalid,
  kReasonStateNameTooLong,
  kReasonReserveTooLarge,
  kReasonForeignProcess,
  kReasonStateUnbound,
  kReasonStateBehindWitness,
  kReasonWitnessRequired,
  kReasonWitnessUnreachable,
  kReasonWitnessRefused,
  kReasonStateMixedBlocks,
  kReasonStateNoFileHandles,
  kReasonStateNameIsCache,
  kReasonExhaustionNotAcknowledged,
  kReasonWitnessModuleMissing,
  kReasonCount
};

// The table OpenSSL asks for with get_reason_strings.
const OSSL_ITEM* reason_strings() noexcept;

// Raises `reason` with a printf-style detail message. Safe with a null context (does nothing).
void raise_error(const ProviderContext* ctx, int reason, const char* file, int line, const char* func,
                 const char* format, ...) noexcept __attribute__((format(printf, 6, 7)));

// Maps an engine error to a reason and raises it, with `what` as context ("signing", "opening the
// state file ..."). The message includes the engine's own description.
void raise_lms_error(const ProviderContext* ctx, klms::Error error, const char* file, int line, const char* func,
                     const char* what) noexcept;
// The same for an error about the state file at `path`, followed by what to do about it with that
// path in it (state/remedy.h: the chmod to run, `klms-state adopt PATH`, the system's reason).
void raise_state_error(const ProviderContext* ctx, klms::Error error, const char* file, int line, const char* func,
                       const std::string& what, const std::string& path) noexcept;

}  // namespace klms::provider

#define KLMS_RAISE(ctx, reason, ...) \
  ::klms::provider::raise_error((ctx), (reason), __FILE__, __LINE__, __func__, __VA_ARGS__)
#define KLMS_RAISE_STATE(ctx, error, what, path) \
  ::klms::provider::raise_state_error((ctx), (error), __FILE__, __LINE__, __func__, (what), (path))
#define KLMS_RAISE_LMS(ctx, error, what) \
  ::klms::provider::raise_lms_error((ctx), (error), __FILE__, __LINE__, __func__, (what))
