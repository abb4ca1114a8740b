"""pysequoia (Sequoia's Python binding, RustCrypto backend) as nexusq's OpenPGP peer.

tests/interop/sequoia.rs runs it; each command reads and writes files:

  gen TSK CERT           a fresh RFC 9980 key (ML-DSA-65+Ed25519, ML-KEM-768+X25519, v6)
  gen-classic TSK CERT   a fresh classical v6 key (Ed25519, X25519)
  inspect CERT           fingerprint and key algorithms, one per line
  encrypt CERT... IN OUT an OpenPGP message to every CERT (armored)
  decrypt TSK IN OUT     decrypt with TSK's key
  sign TSK IN SIG        a detached signature
  verify CERT IN SIG     exit 0 when SIG is a good signature of IN by CERT
"""

import sys

import pysequoia as sq


def main(cmd, *args):
    if cmd in ("gen", "gen-classic"):
        suite = sq.CipherSuite.MLDSA65_Ed25519 if cmd == "gen" else sq.CipherSuite.Cv25519
        tsk = sq.Tsk.generate(
            "Bob <bob@example.org>",
            profile=sq.Profile.RFC9580,
            cipher_suite=suite,
        )
        open(args[0], "wb").write(str(tsk).encode())
        open(args[1], "wb").write(str(tsk.extract_certificate()).encode())
    elif cmd == "inspect":
        cert = sq.Cert.from_file(args[0])
        print(cert.fingerprint)
        for p in sq.packet.PacketPile.from_file(args[0]):
            if p.key_algorithm is not None and p.fingerprint is not None:
                print(p.tag, p.key_algorithm)
    elif cmd == "encrypt":
        certs = [sq.Cert.from_file(c) for c in args[:-2]]
        data = open(args[-2], "rb").read()
        open(args[-1], "wb").write(sq.encrypt(data, certs))
    elif cmd == "decrypt":
        tsk = sq.Tsk.from_file(args[0])
        data = open(args[1], "rb").read()
        open(args[2], "wb").write(sq.decrypt(data, tsk.decryptor()).bytes)
    elif cmd == "sign":
        tsk = sq.Tsk.from_file(args[0])
        data = open(args[1], "rb").read()
        sig = sq.sign(tsk.signer(), data, mode=sq.SignatureMode.DETACHED)
        open(args[2], "wb").write(sig)
    elif cmd == "verify":
        cert = sq.Cert.from_file(args[0])
        data = open(args[1], "rb").read()
        sig = sq.Sig.from_file(args[2])
        result = sq.verify(bytes=data, store=lambda ids: [cert], signature=sig)
        if not result.valid_sigs:
            sys.exit("no valid signature")
        print(result.valid_sigs)
    else:
        sys.exit(f"unknown command {cmd}")


if __name__ == "__main__":
    main(*sys.argv[1:])
