// The module's state in one process (docs/pkcs11.md "Processes and threads"): its slots with their
// login state and the keys opened for signing, its sessions and object handles. Each process has
// its own (base/per_process.h): a copy of a process made by fork() starts with none, so its
// inherited sessions answer CKR_CRYPTOKI_NOT_INITIALIZED until it calls C_Initialize, and it never
// locks or uses what its parent held. One mutex guards it; signing and key generation let go of it
// while the engine works.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pkcs11/config.h"
#include "pkcs11/cryptoki.h"
#include "pkcs11/object.h"
#include "pkcs11/token_store.h"

namespace klms::pkcs11 {

enum class Login : std::uint8_t { kNone, kUser, kSo };

struct Slot {
  explicit Slot(TokenConfig config) : store(std::move(config)) {}
  TokenStore store;
  Login login = Login::kNone;
  TokenKey token_key;  // while logged in
  // Private keys opened for signing in this process, by uid: their signers keep their trees.
  std::map<std::string, std::shared_ptr<engine::SigningKey>> signing_keys;

  void logout() noexcept {
    login = Login::kNone;
    wipe(token_key.data(), token_key.size());
    signing_keys.clear();
  }
};

struct Operation {
  enum class Kind : std::uint8_t { kNone, kFind, kSign, kSigning, kVerify };
  Kind kind = Kind::kNone;
  CK_OBJECT_HANDLE key = CK_INVALID_HANDLE;
  Bytes public_key;  // verification: the key as it was at C_VerifyInit
  std::vector<CK_OBJECT_HANDLE> found;
  std::size_t next = 0;
};

struct Session {
  CK_SLOT_ID slot = 0;
  bool rw = false;
  Operation op;
  CK_ULONG device_error = 0;  // the klms error code of the last refused signature (docs/pkcs11.md "Return values")
};

// What an object handle names: a token object (by slot and uid) or a session object.
struct ObjectRef {
  CK_SLOT_ID slot = 0;
  std::string uid;
  std::shared_ptr<Object> session_object;
  CK_SESSION_HANDLE owner = CK_INVALID_HANDLE;
};

struct Module {
  std::mutex mutex;
  bool initialized = false;
  std::vector<std::unique_ptr<Slot>> slots;
  std::map<CK_SESSION_HANDLE, Session> sessions;
  CK_SESSION_HANDLE next_session = 1;
  std::map<CK_OBJECT_HANDLE, ObjectRef> objects;
  std::map<std::pair<CK_SLOT_ID, std::string>, CK_OBJECT_HANDLE> token_handles;
  CK_OBJECT_HANDLE next_object = 1;

  Slot* slot(CK_SLOT_ID id) noexcept { return id < slots.size() ? slots[id].get() : nullptr; }
  Session* session(CK_SESSION_HANDLE h) noexcept;
  // The handle of a token object in this process (made at its first sight; stable until C_Finalize).
  CK_OBJECT_HANDLE token_handle(CK_SLOT_ID slot, const std::string& uid);
  CK_OBJECT_HANDLE add_session_object(CK_SLOT_ID slot, CK_SESSION_HANDLE owner, std::shared_ptr<Object> object);
  // The object a handle names as `session` may see it: a private object only while the user is
  // logged in, a session object only on its own slot. CKR_OBJECT_HANDLE_INVALID otherwise, or
  // when its file is gone (another process destroyed it); CKR_DEVICE_ERROR for an unreadable file.
  CK_RV read_object(CK_OBJECT_HANDLE handle, const Session& session, Object& out);
  // The uids of the token objects in a slot's directory, in name order.
  std::vector<std::string> token_uids(const Slot& slot) const;
  // Closes a session: its session objects go with it.
  void close_session(CK_SESSION_HANDLE h);
  // C_Finalize: every session closed, every slot logged out, the configuration forgotten.
  void reset() noexcept;
};

// This process's module (base/per_process.h).
Module& module();

CK_STATE session_state(const Module& m, const Session& s) noexcept;

}  // namespace klms::pkcs11
