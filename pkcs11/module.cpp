#include "pkcs11/module.h"

#include <dirent.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/per_process.h"
#include "pkcs11/log.h"
#include "pkcs11/record_file.h"

namespace klms::pkcs11 {

Module& module() {
  // Never destroyed: an application may call in from a thread while it exits.
  static auto* per_process = new PerProcess<Module>;
  return per_process->mine();
}

Session* Module::session(CK_SESSION_HANDLE h) noexcept {
  auto it = sessions.find(h);
  return it == sessions.end() ? nullptr : &it->second;
}

CK_OBJECT_HANDLE Module::token_handle(CK_SLOT_ID slot_id, const std::string& uid) {
  auto key = std::make_pair(slot_id, uid);
  if (auto it = token_handles.find(key); it != token_handles.end()) return it->second;
  const CK_OBJECT_HANDLE h = next_object++;
  objects[h] = ObjectRef{slot_id, uid, nullptr, CK_INVALID_HANDLE};
  token_handles[key] = h;
  return h;
}

CK_OBJECT_HANDLE Module::add_session_object(CK_SLOT_ID slot_id, CK_SESSION_HANDLE owner,
                                            std::shared_ptr<Object> object) {
  const CK_OBJECT_HANDLE h = next_object++;
  objects[h] = ObjectRef{slot_id, "", std::move(object), owner};
  return h;
}

CK_RV Module::read_object(CK_OBJECT_HANDLE handle, const Session& s, Object& out) {
  auto it = objects.find(handle);
  if (it == objects.end() || it->second.slot != s.slot) return CKR_OBJECT_HANDLE_INVALID;
  const Slot* sl = slot(s.slot);
  if (sl == nullptr) return CKR_OBJECT_HANDLE_INVALID;
  if (it->second.session_object) {
    out = *it->second.session_object;
  } else {
    const std::string path = object_path(sl->store.dir(), it->second.uid);
    auto text = read_small_file(path);
    if (!text) {
      if (errno == ENOENT) return CKR_OBJECT_HANDLE_INVALID;
      log_line(LogLevel::kError, "cannot read %s: %s", path.c_str(), std::strerror(errno));
      return CKR_DEVICE_ERROR;
    }
    auto parsed = parse_object(*text, it->second.uid);
    if (!parsed) {
      log_line(LogLevel::kError, "%s is not a well-formed klms object file: left alone, not offered", path.c_str());
      return CKR_OBJECT_HANDLE_INVALID;
    }
    out = std::move(*parsed);
    if (out.klass == CKO_PRIVATE_KEY) out.state_file = state_path(sl->store.dir(), out.uid);
  }
  if (out.is_private && sl->login != Login::kUser) return CKR_OBJECT_HANDLE_INVALID;
  return CKR_OK;
}

std::vector<std::string> Module::token_uids(const Slot& sl) const {
  std::vector<std::string> out;
  DIR* d = opendir(sl.store.objects_dir().c_str());
  if (d == nullptr) return out;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() == 36 && name.compare(32, 4, ".obj") == 0) out.push_back(name.substr(0, 32));
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

void Module::close_session(CK_SESSION_HANDLE h) {
  sessions.erase(h);
  for (auto it = objects.begin(); it != objects.end();) {
    if (it->second.session_object && it->second.owner == h) {
      it = objects.erase(it);
    } else {
      ++it;
    }
  }
}

void Module::reset() noexcept {
  sessions.clear();
  objects.clear();
  token_handles.clear();
  for (auto& s : slots) s->logout();
  slots.clear();
  initialized = false;
}

CK_STATE session_state(const Module& m, const Session& s) noexcept {
  const Slot* sl = s.slot < m.slots.size() ? m.slots[s.slot].get() : nullptr;
  const Login login = sl == nullptr ? Login::kNone : sl->login;
  if (login == Login::kSo) return CKS_RW_SO_FUNCTIONS;
  if (login == Login::kUser) return s.rw ? CKS_RW_USER_FUNCTIONS : CKS_RO_USER_FUNCTIONS;
  return s.rw ? CKS_RW_PUBLIC_SESSION : CKS_RO_PUBLIC_SESSION;
}

}  // namespace klms::pkcs11
