#!/usr/bin/python3
"""An independent svc-fed/1 implementation for interop tests: Debian's
python3-cbor2 (canonical CBOR) and python3-nacl (libsodium).

Reads one JSON request on stdin, writes one JSON answer on stdout:
  {"op": "verify", "frames": [b64url...]}
      -> [{"ok", "canonical", "payload"}]: signature (libsodium) over
         "svc-fed/1\\n" + payload bytes as received; canonical = both frame and
         payload re-encode (cbor2, canonical) to the same bytes
  {"op": "sign", "seed": b64url, "payloads": [payload JSON...]}
      -> [b64url frame...] signed with libsodium; payload keys are "1".."7"
  {"op": "variants", "seed": b64url, "payload": payload JSON}
      -> {name: b64url frame}: honestly signed frames whose payload bytes are
         not canonical in one way each
  {"op": "edge", "cases": [{"pk", "msg", "sig"} hex...]} -> [bool...] (libsodium's verdict)
"""
import base64
import json
import sys

import cbor2
import nacl.bindings
import nacl.exceptions
import nacl.signing

PREFIX = b"svc-fed/1\n"


def b64d(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def b64e(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def jsonable(v):
    if isinstance(v, bytes):
        return {"$bytes": b64e(v)}
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, list):
        return [jsonable(x) for x in v]
    return v


def from_json(p):
    return {int(k): v for k, v in p.items()}


def canonical(b):
    return cbor2.dumps(cbor2.loads(b), canonical=True) == b


def verify(frames):
    out = []
    for f in frames:
        raw = b64d(f)
        frame = cbor2.loads(raw)
        payload_bytes, key, sig = frame[1], b64d(frame[2]), frame[3]
        try:
            nacl.bindings.crypto_sign_open(sig + PREFIX + payload_bytes, key)
            ok = True
        except nacl.exceptions.BadSignatureError:
            ok = False
        out.append({"ok": ok, "canonical": canonical(raw) and canonical(payload_bytes), "payload": jsonable(cbor2.loads(payload_bytes))})
    return out


def frame_of(sk, payload_bytes):
    sig = sk.sign(PREFIX + payload_bytes).signature
    return cbor2.dumps({1: payload_bytes, 2: b64e(bytes(sk.verify_key)), 3: sig}, canonical=True)


def sign(seed, payloads):
    sk = nacl.signing.SigningKey(b64d(seed))
    return [b64e(frame_of(sk, cbor2.dumps(from_json(p), canonical=True))) for p in payloads]


def variants(seed, p):
    sk = nacl.signing.SigningKey(b64d(seed))
    m = from_json(p)
    out = {}
    # keys in descending order: not sorted
    out["unsorted_keys"] = cbor2.dumps(dict(sorted(m.items(), reverse=True)), canonical=False)
    # a float where an integer belongs (cbor2 writes 42.0 as a half float)
    out["float"] = cbor2.dumps({**m, 4: float(m[4])}, canonical=True)
    # v written in two bytes
    good = cbor2.dumps(m, canonical=True)
    i = good.index(b"\x04" + bytes([m[4]]))
    out["non_shortest"] = good[:i] + b"\x04\x18" + bytes([m[4]]) + good[i + 2:]
    # a tag around the gid
    out["tag"] = cbor2.dumps({**m, 2: cbor2.CBORTag(32, m[2])}, canonical=True)
    return {k: b64e(frame_of(sk, v)) for k, v in out.items()}


def edge(cases):
    out = []
    for c in cases:
        try:
            nacl.bindings.crypto_sign_open(bytes.fromhex(c["sig"]) + bytes.fromhex(c["msg"]), bytes.fromhex(c["pk"]))
            out.append(True)
        except (nacl.exceptions.BadSignatureError, nacl.exceptions.ValueError, ValueError):
            out.append(False)
    return out


req = json.load(sys.stdin)
op = req["op"]
if op == "verify":
    res = verify(req["frames"])
elif op == "sign":
    res = sign(req["seed"], req["payloads"])
elif op == "variants":
    res = variants(req["seed"], req["payload"])
elif op == "edge":
    res = edge(req["cases"])
else:
    sys.exit("unknown op " + op)
json.dump(res, sys.stdout)
