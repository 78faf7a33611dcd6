#!/usr/bin/python3
# The module's costs as a PyKCS11 program sees them (docs/pkcs11.md "Performance"), timed inside
# the process with time.perf_counter:
#   p11_bench.py PIN LABEL COUNT
# prints the load (dlopen, C_GetFunctionList, C_Initialize), C_OpenSession, C_Login, the first
# signature (it loads the key's tree cache), then COUNT signatures each timed alone: median, p10,
# p90 in ms and signatures per second. Environment: KLMS_PKCS11_MODULE and the module's variables.
import os
import statistics
import sys
import time

import PyKCS11


def ms(t):
    return "%.3f" % (t * 1000)


def main(pin, label, count):
    t0 = time.perf_counter()
    lib = PyKCS11.PyKCS11Lib()
    lib.load(os.environ["KLMS_PKCS11_MODULE"])
    t1 = time.perf_counter()
    slot = lib.getSlotList()[0]
    s = lib.openSession(slot, PyKCS11.CKF_SERIAL_SESSION | PyKCS11.CKF_RW_SESSION)
    t2 = time.perf_counter()
    s.login(pin)
    t3 = time.perf_counter()
    key = s.findObjects([(PyKCS11.CKA_CLASS, PyKCS11.CKO_PRIVATE_KEY), (PyKCS11.CKA_LABEL, label)])[0]
    mechanism = PyKCS11.Mechanism(0x4033, None)
    t4 = time.perf_counter()
    s.sign(key, b"first", mechanism)
    t5 = time.perf_counter()
    times = []
    for i in range(int(count)):
        message = b"bench %d" % i
        a = time.perf_counter()
        s.sign(key, message, mechanism)
        times.append(time.perf_counter() - a)
    times.sort()
    q = statistics.quantiles(times, n=10)
    print("load_ms %s open_session_ms %s login_ms %s first_sign_ms %s" % (ms(t1 - t0), ms(t2 - t1), ms(t3 - t2), ms(t5 - t4)))
    print("sign_ms median %s p10 %s p90 %s per_s %.1f n %d" % (ms(statistics.median(times)), ms(q[0]), ms(q[-1]),
                                                             len(times) / sum(times), len(times)))


if __name__ == "__main__":
    main(*sys.argv[1:])
