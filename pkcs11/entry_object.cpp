// Objects ("Object management functions" of the specification): token objects are files read on
// every use, so what another process created or destroyed is seen at once; session objects live
// in this process until their session closes.
#include <cstring>

#include "pkcs11/c_boundary.h"
#include "pkcs11/record_file.h"
#include "pkcs11/signing_keys.h"
#include "pkcs11/templates.h"
#include "pkcs11/token_objects.h"

using namespace klms::pkcs11;

KLMS_PKCS11_EXPORT CK_RV C_CreateObject(CK_SESSION_HANDLE hSession, CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulCount,
                                        CK_OBJECT_HANDLE_PTR phObject) {
  return with_session("C_CreateObject", hSession, [&](Module& m, Session& s, ModuleLock&) -> CK_RV {
    if (phObject == nullptr) return CKR_ARGUMENTS_BAD;
    auto object = std::make_shared<Object>();
    std::string why;
    if (const CK_RV rv = parse_public_key_template(pTemplate, ulCount, *object, why); rv != CKR_OK) {
      log_line(LogLevel::kError, "C_CreateObject: %s", why.c_str());
      return rv;
    }
    Slot* slot = m.slot(s.slot);
    if (object->is_private && slot->login != Login::kUser) return CKR_USER_NOT_LOGGED_IN;
    if (object->id.empty()) {
      const auto id = engine::key_id(klms::ByteView(object->public_key.data(), object->public_key.size()));
      object->id.assign(id.begin(), id.end());
    }
    if (!object->token) {
      *phObject = m.add_session_object(s.slot, hSession, std::move(object));
      return CKR_OK;
    }
    if (!s.rw) return CKR_SESSION_READ_ONLY;
    if (!new_uid(object->uid)) return CKR_FUNCTION_FAILED;
    if (const CK_RV rv = store_token_object(slot->store.dir(), *object); rv != CKR_OK) return rv;
    *phObject = m.token_handle(s.slot, object->uid);
    return CKR_OK;
  });
}

KLMS_PKCS11_EXPORT CK_RV C_CopyObject(CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE hObject, CK_ATTRIBUTE_PTR, CK_ULONG,
                                      CK_OBJECT_HANDLE_PTR) {
  return with_session("C_CopyObject", hSession, [&](Module& m, Session& s, ModuleLock&) -> CK_RV {
    Object o;
    if (const CK_RV rv = m.read_object(hObject, s, o); rv != CKR_OK) return rv;
    return CKR_ACTION_PROHIBITED;  // CKA_COPYABLE is CK_FALSE: a copy of a stateful key could sign twice
  });
}

KLMS_PKCS11_EXPORT CK_RV C_DestroyObject(CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE hObject) {
  return with_session("C_DestroyObject", hSession, [&](Module& m, Session& s, ModuleLock&) -> CK_RV {
    Object o;
    if (const CK_RV rv = m.read_object(hObject, s, o); rv != CKR_OK) return rv;
    const ObjectRef ref = m.objects[hObject];
    if (ref.session_object) {
      m.objects.erase(hObject);
      return CKR_OK;
    }
    if (!s.rw) return CKR_SESSION_READ_ONLY;
    Slot* slot = m.slot(s.slot);
    if (const CK_RV rv = destroy_token_object(*slot, o); rv != CKR_OK) return rv;
    m.objects.erase(hObject);
    m.token_handles.erase({ref.slot, ref.uid});
    return CKR_OK;
  });
}

KLMS_PKCS11_EXPORT CK_RV C_GetObjectSize(CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE hObject, CK_ULONG_PTR pulSize) {
  return with_session("C_GetObjectSize", hSession, [&](Module& m, Session& s, ModuleLock&) -> CK_RV {
    if (pulSize == nullptr) return CKR_ARGUMENTS_BAD;
    Object o;
    if (const CK_RV rv = m.read_object(hObject, s, o); rv != CKR_OK) return rv;
    *pulSize = serialize_object(o).size();
    return CKR_OK;
  });
}

KLMS_PKCS11_EXPORT CK_RV C_GetAttributeValue(CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE hObject,
                                             CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulCount) {
  return with_session("C_GetAttributeValue", hSession, [&](Module& m, Session& s, ModuleLock&) -> CK_RV {
    if (pTemplate == nullptr && ulCount > 0) return CKR_ARGUMENTS_BAD;
    Object o;
    if (const CK_RV rv = m.read_object(hObject, s, o); rv != CKR_OK) return rv;
    Slot* slot = m.slot(s.slot);
    return get_attribute_values(o, pTemplate, ulCount, remaining_reader(*slot, o));
  });
}

KLMS_PKCS11_EXPORT CK_RV C_SetAttributeValue(CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE hObject,
                                             CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulCount) {
  return with_session("C_SetAttributeValue", hSession, [&](Module& m, Session& s, ModuleLock&) -> CK_RV {
    Object o;
    if (const CK_RV rv = m.read_object(hObject, s, o); rv != CKR_OK) return rv;
    if (o.token && !s.rw) return CKR_SESSION_READ_ONLY;
    if (!o.modifiable) return CKR_ACTION_PROHIBITED;
    std::string why;
    if (const CK_RV rv = apply_set_template(pTemplate, ulCount, o, why); rv != CKR_OK) {
      log_line(LogLevel::kError, "C_SetAttributeValue: %s", why.c_str());
      return rv;
    }
    ObjectRef& ref = m.objects[hObject];
    if (ref.session_object) {
      *ref.session_object = o;
      return CKR_OK;
    }
    return store_token_object(m.slot(s.slot)->store.dir(), o);
  });
}

KLMS_PKCS11_EXPORT CK_RV C_FindObjectsInit(CK_SESSION_HANDLE hSession, CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulCount) {
  return with_session("C_FindObjectsInit", hSession, [&](Module& m, Session& s, ModuleLock&) -> CK_RV {
    if (pTemplate == nullptr && ulCount > 0) return CKR_ARGUMENTS_BAD;
    if (s.op.kind != Operation::Kind::kNone) return CKR_OPERATION_ACTIVE;
    Slot* slot = m.slot(s.slot);
    Operation op;
    op.kind = Operation::Kind::kFind;
    std::vector<CK_OBJECT_HANDLE> candidates;
    for (const std::string& uid : m.token_uids(*slot)) candidates.push_back(m.token_handle(s.slot, uid));
    for (const auto& [h, ref] : m.objects) {
      if (ref.session_object && ref.slot == s.slot) candidates.push_back(h);
    }
    for (CK_OBJECT_HANDLE h : candidates) {
      Object o;
      if (m.read_object(h, s, o) != CKR_OK) continue;  // gone, unreadable, or private and not logged in
      if (matches(o, pTemplate, ulCount, remaining_reader(*slot, o))) op.found.push_back(h);
    }
    s.op = std::move(op);
    return CKR_OK;
  });
}

KLMS_PKCS11_EXPORT CK_RV C_FindObjects(CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE_PTR phObject,
                                       CK_ULONG ulMaxObjectCount, CK_ULONG_PTR pulObjectCount) {
  return with_session("C_FindObjects", hSession, [&](Module&, Session& s, ModuleLock&) -> CK_RV {
    if (s.op.kind != Operation::Kind::kFind) return CKR_OPERATION_NOT_INITIALIZED;
    if (pulObjectCount == nullptr || (phObject == nullptr && ulMaxObjectCount > 0)) return CKR_ARGUMENTS_BAD;
    CK_ULONG n = 0;
    while (n < ulMaxObjectCount && s.op.next < s.op.found.size()) phObject[n++] = s.op.found[s.op.next++];
    *pulObjectCount = n;
    return CKR_OK;
  });
}

KLMS_PKCS11_EXPORT CK_RV C_FindObjectsFinal(CK_SESSION_HANDLE hSession) {
  return with_session("C_FindObjectsFinal", hSession, [&](Module&, Session& s, ModuleLock&) -> CK_RV {
    if (s.op.kind != Operation::Kind::kFind) return CKR_OPERATION_NOT_INITIALIZED;
    s.op = Operation{};
    return CKR_OK;
  });
}
