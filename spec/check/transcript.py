"""The verdict Fiat-Shamir transcript (spec/transcript.md), over blake3.py."""

import blake3

DOMAIN = "verdict-nizk transcript v1"

OP_PROTOCOL = 0x00
OP_APPEND = 0x01
OP_CHALLENGE = 0x02
OP_RATCHET = 0x03
OP_WITNESS = 0x04
OP_RNG = 0x05


def u64le(n):
    return n.to_bytes(8, "little")


def u32le(n):
    return n.to_bytes(4, "little")


class Transcript:
    def __init__(self, protocol):
        self.h = blake3.derive_key_hasher(DOMAIN)
        self._frame(OP_PROTOCOL, b"protocol", protocol)

    def _frame(self, op, label, data):
        self.h.update(bytes([op]) + u64le(len(label)) + label + u64le(len(data)) + data)

    def copy(self):
        t = Transcript.__new__(Transcript)
        t.h = self.h.copy()
        return t

    def append(self, label, data):
        self._frame(OP_APPEND, label, bytes(data))

    def append_u64(self, label, n):
        self.append(label, u64le(n))

    def _squeeze(self, label, count, n):
        self._frame(OP_CHALLENGE, label, u64le(count))
        out = self.h.xof(32 + n)
        self._frame(OP_RATCHET, b"ratchet", out[:32])
        return out[32:]

    def challenge_bytes(self, label, n):
        return self._squeeze(label, n, n)

    def challenge_scalar(self, label, group):
        return group.scalar_from_uniform(self.challenge_bytes(label, 64))

    def prover_rng(self, witness_label, witness, entropy):
        """spec/transcript.md §5: a fork of the state with the witness and 32 entropy bytes
        framed in; returns its stream (an object whose scalar(group) reads 64 bytes)."""
        fork = self.h.copy()
        for op, label, data in ((OP_WITNESS, witness_label, witness), (OP_RNG, b"rng", entropy)):
            fork.update(bytes([op]) + u64le(len(label)) + label + u64le(len(data)) + data)
        return ProverStream(fork)

    def challenge_scalars(self, label, n, group):
        out = self._squeeze(label, n, 64 * n)
        return [group.scalar_from_uniform(out[64 * i:64 * i + 64]) for i in range(n)]

    def challenge_weights(self, label, n):
        """spec/transcript.md §3: n integers below 2^128, 16 little-endian bytes each, in every
        group (never reduced: they are below every group order)."""
        out = self._squeeze(label, n, 16 * n)
        return [int.from_bytes(out[16 * i:16 * i + 16], "little") for i in range(n)]


class ProverStream:
    """The XOF output of a forked prover RNG, read front to back."""

    def __init__(self, hasher):
        self.h = hasher
        self.pos = 0

    def read(self, n):
        out = self.h.xof(n, seek=self.pos)
        self.pos += n
        return out

    def scalar(self, group):
        return group.scalar_from_uniform(self.read(64))


def context_transcript(purpose, session, round_=None, slot=None, sender=None, fields=()):
    """spec/transcript.md, "Proof context"."""
    t = Transcript(purpose)
    t.append(b"ctx/purpose", purpose)
    t.append(b"ctx/session", session)
    t.append(b"ctx/round", b"" if round_ is None else u64le(round_))
    t.append(b"ctx/slot", b"" if slot is None else u32le(slot))
    t.append(b"ctx/sender", b"" if sender is None else u32le(sender))
    t.append_u64(b"ctx/fields", len(fields))
    for label, value in fields:
        t.append(b"ctx/field-label", label)
        t.append(b"ctx/field-value", value)
    return t
