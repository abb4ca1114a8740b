#!/usr/bin/env python3
"""Independent generator for nexusq's ML-KEM-1024 + X25519 test vectors.

Uses kyber-py (pure-Python FIPS 203) and pyca/cryptography (X25519), not nexusq's code:
    pip install kyber-py cryptography
    python3 core/tests/vectors/gen_mlkem1024_x25519.py > core/tests/vectors/mlkem1024-x25519.json
Seeds are SHAKE-256 of a fixed string and the case number, so the output is reproducible.
"""
import hashlib
import json

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from kyber_py.ml_kem import ML_KEM_1024

LABEL = b"nexusq/MLKEM1024-X25519/v1"
RAW = (Encoding.Raw, PublicFormat.Raw)


def x25519_public(secret: bytes) -> bytes:
    return X25519PrivateKey.from_private_bytes(secret).public_key().public_bytes(*RAW)


def x25519(secret: bytes, public: bytes) -> bytes:
    return X25519PrivateKey.from_private_bytes(secret).exchange(X25519PublicKey.from_public_bytes(public))


def case(i: int) -> dict:
    seed = hashlib.shake_256(b"nexusq mlkem1024-x25519 vector seed %d" % i).digest(32)
    eseed = hashlib.shake_256(b"nexusq mlkem1024-x25519 vector eseed %d" % i).digest(64)
    expanded = hashlib.shake_256(seed).digest(96)
    d, z, sk_x = expanded[:32], expanded[32:64], expanded[64:]
    ek_m, dk_m = ML_KEM_1024._keygen_internal(d, z)
    pk_x = x25519_public(sk_x)
    ss_m, ct_m = ML_KEM_1024._encaps_internal(ek_m, eseed[:32])
    ek_x = eseed[32:]
    ct_x = x25519_public(ek_x)
    ss_x = x25519(ek_x, pk_x)
    ss = hashlib.sha3_256(ss_m + ss_x + ct_x + pk_x + LABEL).digest()
    assert ML_KEM_1024._decaps_internal(dk_m, ct_m) == ss_m
    return {
        "seed": seed.hex(),
        "eseed": eseed.hex(),
        "pk": (ek_m + pk_x).hex(),
        "ct": (ct_m + ct_x).hex(),
        "ss": ss.hex(),
    }


print(json.dumps([case(i) for i in range(3)], indent=1))
