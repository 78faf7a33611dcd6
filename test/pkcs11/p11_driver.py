#!/usr/bin/python3
# Drives libklms-pkcs11.so through PyKCS11 (Debian's python3-pykcs11), a PKCS#11 client nobody
# here wrote, for test/recipes/pkcs11.t and test/recipes/pkcs11_reuse.t. Each subcommand prints
# "key value" lines the recipe reads and exits 0, or prints "FAIL <what>" and exits 1; a PKCS#11
# error the step did not expect exits 2 with its CKR name.
#
#   p11_driver.py init SO_PIN USER_PIN LABEL
#   p11_driver.py keygen PIN LABEL LEVELS OUTDIR        LEVELS: "lms/ots[,lms/ots...]" type codes (hex or decimal)
#   p11_driver.py sign PIN LABEL COUNT OUTDIR PREFIX    length query and too-small buffer first, each checked to spend nothing
#   p11_driver.py loop PIN LABEL COUNT OUTDIR PREFIX    plain signatures, each file written as it arrives
#   p11_driver.py expect PIN LABEL CKR                  one C_Sign that must answer CKR (name); prints its ulDeviceError
#   p11_driver.py login PIN [CKR]                       a user login that must answer CKR (default CKR_OK)
#   p11_driver.py so_reset SO_PIN NEW_USER_PIN          the SO sets a new user PIN (C_InitPIN)
#   p11_driver.py set_pin OLD NEW                       the user changes the user PIN (C_SetPIN)
#   p11_driver.py fork PIN LABEL COUNT OUTDIR           a fork: the child's inherited session refuses, then it re-initializes
#   p11_driver.py attributes PIN LABEL                  the attribute rules of C_GetAttributeValue
#   p11_driver.py destroy PIN LABEL                     C_DestroyObject of both halves
#   p11_driver.py remaining PIN LABEL                   CKA_HSS_KEYS_REMAINING
# Environment: KLMS_PKCS11_MODULE (the module), and the module's own KLMS_PKCS11_* variables.
import os
import struct
import sys

import PyKCS11
from PyKCS11 import ckbytelist

CKM_HSS_KEY_PAIR_GEN = 0x4032
CKM_HSS = 0x4033
CKK_HSS = 0x46
CKA_HSS_LEVELS = 0x617
CKA_HSS_LMS_TYPE = 0x618
CKA_HSS_LMOTS_TYPE = 0x619
CKA_HSS_LMS_TYPES = 0x61A
CKA_HSS_LMOTS_TYPES = 0x61B
CKA_HSS_KEYS_REMAINING = 0x61C
CKA_KLMS_STATE_FILE = 0x80000000 | 0x4B4C0001
CKR_KEY_EXHAUSTED = 0x203
RW = PyKCS11.CKF_SERIAL_SESSION | PyKCS11.CKF_RW_SESSION


def ckr_name(rv):
    return "CKR_KEY_EXHAUSTED" if rv == CKR_KEY_EXHAUSTED else PyKCS11.CKR.get(rv, "0x%x" % rv)


def ckr_value(name):
    return CKR_KEY_EXHAUSTED if name == "CKR_KEY_EXHAUSTED" else getattr(PyKCS11, name)


def fail(what):
    print("FAIL " + what)
    sys.exit(1)


def check(cond, what):
    if not cond:
        fail(what)


def ulongs(*values):
    return struct.pack("%dL" % len(values), *values)  # native CK_ULONG


def as_ulongs(value):
    raw = bytes(value)
    return list(struct.unpack("%dL" % (len(raw) // struct.calcsize("L")), raw))


class Token:
    def __init__(self):
        self.lib = PyKCS11.PyKCS11Lib()
        self.lib.load(os.environ["KLMS_PKCS11_MODULE"])
        self.slot = self.lib.getSlotList()[0]
        self.session = None

    def open(self, pin=None):
        self.session = self.lib.openSession(self.slot, RW)
        if pin is not None:
            self.session.login(pin)
        return self.session

    def private_key(self, label):
        found = self.session.findObjects([(PyKCS11.CKA_CLASS, PyKCS11.CKO_PRIVATE_KEY), (PyKCS11.CKA_LABEL, label)])
        check(len(found) == 1, "one private key labelled %s, found %d" % (label, len(found)))
        return found[0]

    def public_key(self, label):
        found = self.session.findObjects([(PyKCS11.CKA_CLASS, PyKCS11.CKO_PUBLIC_KEY), (PyKCS11.CKA_LABEL, label)])
        check(len(found) == 1, "one public key labelled %s, found %d" % (label, len(found)))
        return found[0]

    def remaining(self, key):
        return as_ulongs(self.session.getAttributeValue(key, [CKA_HSS_KEYS_REMAINING], allAsBinary=True)[0])[0]

    # One C_Sign of a signing operation; (rv, signature bytes) with `size` bytes of room (None: the length query).
    def c_sign(self, data, size):
        out = ckbytelist() if size is None else ckbytelist([0] * size)
        rv = self.session.lib.C_Sign(self.session.session, ckbytelist(data), out)
        return rv, bytes(out)

    def sign_init(self, key):
        rv = self.session.lib.C_SignInit(self.session.session, PyKCS11.Mechanism(CKM_HSS, None).to_native(), key)
        if rv != 0:
            raise PyKCS11.PyKCS11Error(rv)


def parse_levels(spec):
    levels = []
    for part in spec.split(","):
        lms, ots = part.split("/")
        levels.append((int(lms, 0), int(ots, 0)))
    return levels


def cmd_init(so_pin, user_pin, label):
    t = Token()
    t.lib.initToken(t.slot, so_pin, label)
    s = t.open()
    s.login(so_pin, PyKCS11.CKU_SO)
    s.initPin(user_pin)
    s.logout()
    info = t.lib.getTokenInfo(t.slot)
    print("label " + info.label.strip())
    print("flags " + " ".join(info.flags2text()))


def cmd_keygen(pin, label, spec, outdir):
    levels = parse_levels(spec)
    t = Token()
    s = t.open(pin)
    public_template = [(PyKCS11.CKA_CLASS, PyKCS11.CKO_PUBLIC_KEY), (PyKCS11.CKA_KEY_TYPE, CKK_HSS),
                       (PyKCS11.CKA_TOKEN, PyKCS11.CK_TRUE), (PyKCS11.CKA_VERIFY, PyKCS11.CK_TRUE),
                       (PyKCS11.CKA_LABEL, label)]
    private_template = [(PyKCS11.CKA_CLASS, PyKCS11.CKO_PRIVATE_KEY), (PyKCS11.CKA_KEY_TYPE, CKK_HSS),
                        (PyKCS11.CKA_TOKEN, PyKCS11.CK_TRUE), (PyKCS11.CKA_PRIVATE, PyKCS11.CK_TRUE),
                        (PyKCS11.CKA_SENSITIVE, PyKCS11.CK_TRUE), (PyKCS11.CKA_EXTRACTABLE, PyKCS11.CK_FALSE),
                        (PyKCS11.CKA_SIGN, PyKCS11.CK_TRUE), (PyKCS11.CKA_LABEL, label),
                        (CKA_HSS_LEVELS, ulongs(len(levels))),
                        (CKA_HSS_LMS_TYPES, ulongs(*[l for l, _ in levels])),
                        (CKA_HSS_LMOTS_TYPES, ulongs(*[o for _, o in levels]))]
    pub, priv = s.generateKeyPair(public_template, private_template,
                                  PyKCS11.Mechanism(CKM_HSS_KEY_PAIR_GEN, None))
    value, spki, key_id = s.getAttributeValue(pub, [PyKCS11.CKA_VALUE, PyKCS11.CKA_PUBLIC_KEY_INFO, PyKCS11.CKA_ID],
                                              allAsBinary=True)
    with open(os.path.join(outdir, label + ".pub"), "wb") as f:
        f.write(bytes(value))
    with open(os.path.join(outdir, label + ".spki.der"), "wb") as f:
        f.write(bytes(spki))
    # What the mechanism contributes (the HSS section of the specification).
    pub_levels, pub_lms, pub_ots = [as_ulongs(v)[0] for v in
                                    s.getAttributeValue(pub, [CKA_HSS_LEVELS, CKA_HSS_LMS_TYPE, CKA_HSS_LMOTS_TYPE],
                                                        allAsBinary=True)]
    check(pub_levels == len(levels), "public CKA_HSS_LEVELS")
    check((pub_lms, pub_ots) == levels[0], "public CKA_HSS_LMS_TYPE/CKA_HSS_LMOTS_TYPE are the top level's")
    lms_types, ots_types = [as_ulongs(v) for v in
                            s.getAttributeValue(priv, [CKA_HSS_LMS_TYPES, CKA_HSS_LMOTS_TYPES], allAsBinary=True)]
    check(list(zip(lms_types, ots_types)) == levels, "private CKA_HSS_LMS_TYPES/CKA_HSS_LMOTS_TYPES")
    state = bytes(s.getAttributeValue(priv, [CKA_KLMS_STATE_FILE], allAsBinary=True)[0]).decode()
    print("id " + bytes(key_id).hex())
    print("state_file " + state)
    print("remaining %d" % t.remaining(priv))


def cmd_sign(pin, label, count, outdir, prefix):
    t = Token()
    t.open(pin)
    priv = t.private_key(label)
    for i in range(int(count)):
        message = ("%s message %d pid %d" % (prefix, i, os.getpid())).encode()
        before = t.remaining(priv)
        t.sign_init(priv)
        rv, empty = t.c_sign(message, None)
        check(rv == 0, "length query answers CKR_OK, not " + ckr_name(rv))
        length = len(empty)
        check(t.remaining(priv) == before, "the length query spends nothing")
        rv, _ = t.c_sign(message, length - 1)
        check(rv == PyKCS11.CKR_BUFFER_TOO_SMALL, "one byte short answers CKR_BUFFER_TOO_SMALL, not " + ckr_name(rv))
        check(t.remaining(priv) == before, "CKR_BUFFER_TOO_SMALL spends nothing")
        rv, signature = t.c_sign(message, length)
        check(rv == 0, "the signature: " + ckr_name(rv))
        check(len(signature) == length, "the signature has the length the query said")
        check(t.remaining(priv) == before - 1, "one returned signature spends one index (%d -> %d)"
              % (before, t.remaining(priv)))
        rv, _ = t.c_sign(message, length)
        check(rv == PyKCS11.CKR_OPERATION_NOT_INITIALIZED,
              "a second C_Sign after the signature: CKR_OPERATION_NOT_INITIALIZED, not " + ckr_name(rv))
        base = os.path.join(outdir, "%s-%d" % (prefix, i))
        with open(base + ".msg", "wb") as f:
            f.write(message)
        with open(base + ".sig", "wb") as f:
            f.write(signature)
    print("signed %s remaining %d" % (count, t.remaining(priv)))


def cmd_loop(pin, label, count, outdir, prefix):
    t = Token()
    s = t.open(pin)
    priv = t.private_key(label)
    mechanism = PyKCS11.Mechanism(CKM_HSS, None)
    for i in range(int(count)):
        message = ("%s message %d pid %d" % (prefix, i, os.getpid())).encode()
        signature = bytes(s.sign(priv, message, mechanism))
        base = os.path.join(outdir, "%s-%d-%d" % (prefix, os.getpid(), i))
        with open(base + ".msg", "wb") as f:
            f.write(message)
        with open(base + ".sig.tmp", "wb") as f:
            f.write(signature)
        os.rename(base + ".sig.tmp", base + ".sig")
    print("signed " + count)


def cmd_expect(pin, label, expected):
    t = Token()
    s = t.open(pin)
    priv = t.private_key(label)
    t.sign_init(priv)
    rv, length = t.c_sign(b"expect", None)
    check(rv == 0, "length query: " + ckr_name(rv))
    rv, signature = t.c_sign(b"expect", len(length))
    device_error = s.getSessionInfo().ulDeviceError
    print("rv %s device_error %d" % (ckr_name(rv), device_error))
    check(rv == ckr_value(expected), "C_Sign answered %s, expected %s" % (ckr_name(rv), expected))


def cmd_login(pin, expected="CKR_OK"):
    t = Token()
    s = t.open()
    rv = s.lib.C_Login(s.session, PyKCS11.CKU_USER, ckbytelist(pin.encode()))
    info = t.lib.getTokenInfo(t.slot)
    print("rv %s flags %s" % (ckr_name(rv), " ".join(info.flags2text())))
    check(rv == ckr_value(expected), "C_Login answered %s, expected %s" % (ckr_name(rv), expected))


def cmd_so_reset(so_pin, new_pin):
    t = Token()
    s = t.open()
    s.login(so_pin, PyKCS11.CKU_SO)
    s.initPin(new_pin)
    print("reset")


def cmd_set_pin(old, new):
    t = Token()
    s = t.open()
    s.setPin(old, new)
    print("changed")


def cmd_fork(pin, label, count, outdir):
    t = Token()
    s = t.open(pin)
    priv = t.private_key(label)
    mechanism = PyKCS11.Mechanism(CKM_HSS, None)
    before = t.remaining(priv)
    pid = os.fork()
    if pid == 0:
        # The child's inherited session and module: refused until it initializes again.
        ok = s.lib.C_SignInit(s.session, mechanism.to_native(), priv) == PyKCS11.CKR_CRYPTOKI_NOT_INITIALIZED
        rv = s.lib.C_Initialize()
        ok = ok and rv == 0
        child = t.lib.openSession(t.slot, RW)
        child.login(pin)
        found = child.findObjects([(PyKCS11.CKA_CLASS, PyKCS11.CKO_PRIVATE_KEY), (PyKCS11.CKA_LABEL, label)])
        for i in range(int(count)):
            message = ("fork child %d" % i).encode()
            sig = bytes(child.sign(found[0], message, mechanism))
            with open(os.path.join(outdir, "fork-child-%d.msg" % i), "wb") as f:
                f.write(message)
            with open(os.path.join(outdir, "fork-child-%d.sig" % i), "wb") as f:
                f.write(sig)
        os._exit(0 if ok else 3)
    for i in range(int(count)):
        message = ("fork parent %d" % i).encode()
        sig = bytes(s.sign(priv, message, mechanism))
        with open(os.path.join(outdir, "fork-parent-%d.msg" % i), "wb") as f:
            f.write(message)
        with open(os.path.join(outdir, "fork-parent-%d.sig" % i), "wb") as f:
            f.write(sig)
    _, status = os.waitpid(pid, 0)
    check(os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0,
          "the child: CKR_CRYPTOKI_NOT_INITIALIZED before C_Initialize, then signs (status %d)" % status)
    after = t.remaining(priv)
    check(after == before - 2 * int(count), "parent and child spent %d indices (%d -> %d)"
          % (2 * int(count), before, after))
    print("fork ok remaining %d" % after)


def cmd_attributes(pin, label):
    t = Token()
    s = t.open(pin)
    priv = t.private_key(label)
    pub = t.public_key(label)
    lib, h = s.lib, s.session

    def query(obj, types, sizes):
        template = PyKCS11.LowLevel.ckattrlist(len(types))
        for i, (ty, size) in enumerate(zip(types, sizes)):
            if size is None:
                template[i].SetType(ty)
            else:
                template[i].SetBin(ty, ckbytelist([0] * size))
        rv = lib.C_GetAttributeValue(h, obj, template)
        return rv, [template[i].GetLen() for i in range(len(types))]

    # The length query of each attribute, then the sensitive and unknown ones: every other entry still
    # answered. (PyKCS11 does not hand back CK_UNAVAILABLE_INFORMATION: test/unit/pkcs11 checks that.)
    rv, lengths = query(pub, [PyKCS11.CKA_VALUE, PyKCS11.CKA_PUBLIC_KEY_INFO], [None, None])
    check(rv == 0 and lengths[0] in (52, 60) and lengths[1] == lengths[0] + 20, "length query of CKA_VALUE, "
          "CKA_PUBLIC_KEY_INFO: %s %s" % (ckr_name(rv), lengths))
    rv, lengths = query(priv, [PyKCS11.CKA_LABEL, PyKCS11.CKA_VALUE, CKA_HSS_KEYS_REMAINING], [None, None, None])
    check(rv == PyKCS11.CKR_ATTRIBUTE_SENSITIVE and lengths[0] == len(label) and lengths[2] == struct.calcsize("L"),
          "CKA_VALUE of the private key: CKR_ATTRIBUTE_SENSITIVE, the others answered: %s %s"
          % (ckr_name(rv), lengths))
    rv, lengths = query(pub, [PyKCS11.CKA_LABEL, PyKCS11.CKA_MODULUS], [None, None])
    check(rv == PyKCS11.CKR_ATTRIBUTE_TYPE_INVALID and lengths[0] == len(label),
          "CKA_MODULUS: CKR_ATTRIBUTE_TYPE_INVALID: %s %s" % (ckr_name(rv), lengths))
    rv, lengths = query(pub, [PyKCS11.CKA_VALUE], [3])
    check(rv == PyKCS11.CKR_BUFFER_TOO_SMALL,
          "3 bytes for CKA_VALUE: CKR_BUFFER_TOO_SMALL: %s %s" % (ckr_name(rv), lengths))
    flags = s.getAttributeValue(priv, [PyKCS11.CKA_SENSITIVE, PyKCS11.CKA_EXTRACTABLE, PyKCS11.CKA_COPYABLE,
                                       PyKCS11.CKA_ALWAYS_SENSITIVE, PyKCS11.CKA_NEVER_EXTRACTABLE,
                                       PyKCS11.CKA_LOCAL, PyKCS11.CKA_PRIVATE])
    check(flags[:2] + flags[3:] == [True, False, True, True, True, True] and bytes(flags[2]) == b"\x00",
          "private key flags: %s" % flags)
    # Not logged in: the private key is invisible, the public one is there.
    s.logout()
    check(len(s.findObjects([(PyKCS11.CKA_CLASS, PyKCS11.CKO_PRIVATE_KEY)])) == 0, "no private object after logout")
    check(len(s.findObjects([(PyKCS11.CKA_CLASS, PyKCS11.CKO_PUBLIC_KEY), (PyKCS11.CKA_LABEL, label)])) == 1,
          "the public key without login")
    print("attributes ok")


def cmd_destroy(pin, label):
    t = Token()
    s = t.open(pin)
    priv = t.private_key(label)
    pub = t.public_key(label)
    s.destroyObject(priv)
    s.destroyObject(pub)
    check(len(s.findObjects([(PyKCS11.CKA_LABEL, label)])) == 0, "both halves gone")
    print("destroyed")


def cmd_remaining(pin, label):
    t = Token()
    t.open(pin)
    print("remaining %d" % t.remaining(t.private_key(label)))


COMMANDS = {"remaining": cmd_remaining, "init": cmd_init, "keygen": cmd_keygen, "sign": cmd_sign, "loop": cmd_loop, "expect": cmd_expect,
            "login": cmd_login, "so_reset": cmd_so_reset, "set_pin": cmd_set_pin, "fork": cmd_fork,
            "attributes": cmd_attributes, "destroy": cmd_destroy}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print("usage: p11_driver.py " + "|".join(COMMANDS) + " ...", file=sys.stderr)
        sys.exit(64)
    try:
        COMMANDS[sys.argv[1]](*sys.argv[2:])
    except PyKCS11.PyKCS11Error as e:
        print("CKR " + ckr_name(e.value))
        sys.exit(2)
