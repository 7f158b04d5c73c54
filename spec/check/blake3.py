"""BLAKE3 (hash, keyed hash, derive_key, XOF) in pure Python, written from the BLAKE3 paper.

Only what the verdict specification uses: `Hasher(key=None | bytes, derive_context=None | str)`,
`update(bytes)`, `xof(n, seek=0)`, plus `derive_key(context, material)`. Slow but exact.
"""

_IV = (
    0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A,
    0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19,
)
_PERM = (2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8)

CHUNK_START = 1
CHUNK_END = 2
PARENT = 4
ROOT = 8
KEYED_HASH = 16
DERIVE_KEY_CONTEXT = 32
DERIVE_KEY_MATERIAL = 64

BLOCK_LEN = 64
CHUNK_LEN = 1024
_M = 0xFFFFFFFF


def _rotr(x, n):
    return ((x >> n) | (x << (32 - n))) & _M


def _g(v, a, b, c, d, x, y):
    v[a] = (v[a] + v[b] + x) & _M
    v[d] = _rotr(v[d] ^ v[a], 16)
    v[c] = (v[c] + v[d]) & _M
    v[b] = _rotr(v[b] ^ v[c], 12)
    v[a] = (v[a] + v[b] + y) & _M
    v[d] = _rotr(v[d] ^ v[a], 8)
    v[c] = (v[c] + v[d]) & _M
    v[b] = _rotr(v[b] ^ v[c], 7)


def _compress(cv, block, counter, block_len, flags):
    """The compression function: returns all 16 output words."""
    m = [int.from_bytes(block[4 * i:4 * i + 4], "little") for i in range(16)]
    v = list(cv) + list(_IV[:4]) + [
        counter & _M, (counter >> 32) & _M, block_len, flags,
    ]
    for r in range(7):
        _g(v, 0, 4, 8, 12, m[0], m[1])
        _g(v, 1, 5, 9, 13, m[2], m[3])
        _g(v, 2, 6, 10, 14, m[4], m[5])
        _g(v, 3, 7, 11, 15, m[6], m[7])
        _g(v, 0, 5, 10, 15, m[8], m[9])
        _g(v, 1, 6, 11, 12, m[10], m[11])
        _g(v, 2, 7, 8, 13, m[12], m[13])
        _g(v, 3, 4, 9, 14, m[14], m[15])
        if r < 6:
            m = [m[_PERM[i]] for i in range(16)]
    for i in range(8):
        v[i] ^= v[i + 8]
        v[i + 8] ^= cv[i]
    return v


class _Output:
    """A compression not yet performed: a chaining value or, at the root, the XOF."""

    def __init__(self, cv, block, counter, block_len, flags):
        self.cv, self.block, self.counter = cv, block, counter
        self.block_len, self.flags = block_len, flags

    def chaining_value(self):
        return _compress(self.cv, self.block, self.counter, self.block_len, self.flags)[:8]

    def root_bytes(self, n, seek=0):
        out = bytearray()
        index = seek // BLOCK_LEN
        skip = seek % BLOCK_LEN
        while len(out) < n + skip:
            words = _compress(self.cv, self.block, index, self.block_len, self.flags | ROOT)
            out += b"".join(w.to_bytes(4, "little") for w in words)
            index += 1
        return bytes(out[skip:skip + n])


def _words(key):
    return [int.from_bytes(key[4 * i:4 * i + 4], "little") for i in range(8)]


class Hasher:
    """An incremental BLAKE3 hasher in one of the three modes (key words and mode flags)."""

    def __init__(self, key_words, flags):
        self._key, self._flags, self._buf = list(key_words), flags, bytearray()

    def update(self, data):
        self._buf += data
        return self

    def copy(self):
        h = Hasher(self._key, self._flags)
        h._buf = bytearray(self._buf)
        return h

    def _chunk_output(self, chunk, counter):
        cv = list(self._key)
        blocks = [chunk[i:i + BLOCK_LEN] for i in range(0, len(chunk), BLOCK_LEN)] or [b""]
        for i, block in enumerate(blocks):
            flags = self._flags
            if i == 0:
                flags |= CHUNK_START
            if i == len(blocks) - 1:
                flags |= CHUNK_END
                return _Output(cv, block.ljust(BLOCK_LEN, b"\0"), counter, len(block), flags)
            cv = _compress(cv, block, counter, BLOCK_LEN, flags)[:8]

    def _parent(self, left, right):
        block = b"".join(w.to_bytes(4, "little") for w in left + right)
        return _Output(list(self._key), block, 0, BLOCK_LEN, self._flags | PARENT)

    def _root(self):
        data = bytes(self._buf)
        chunks = [data[i:i + CHUNK_LEN] for i in range(0, len(data), CHUNK_LEN)] or [b""]

        # Left subtrees hold the largest power of two of chunks that leaves at least one
        # chunk on the right.
        def subtree(lo, hi):
            if hi - lo == 1:
                return self._chunk_output(chunks[lo], lo)
            left = 1
            while left * 2 < hi - lo:
                left *= 2
            return self._parent(
                subtree(lo, lo + left).chaining_value(),
                subtree(lo + left, hi).chaining_value(),
            )

        return subtree(0, len(chunks))

    def xof(self, n, seek=0):
        """`n` output bytes starting at byte `seek` of the extendable output."""
        return self._root().root_bytes(n, seek)


def _new_raw(flags):
    return Hasher(_IV, flags)


def derive_key_hasher(context):
    ctx = _new_raw(DERIVE_KEY_CONTEXT)
    ctx.update(context.encode("utf-8"))
    h = _new_raw(DERIVE_KEY_MATERIAL)
    h._key = _words(ctx.xof(32))
    return h


def keyed_hasher(key):
    h = _new_raw(KEYED_HASH)
    h._key = _words(key)
    return h


def plain_hasher():
    return _new_raw(0)


def derive_key(context, material):
    return derive_key_hasher(context).update(material).xof(32)


def self_test():
    # Official BLAKE3 test vector inputs are bytes i % 251; these three digests are the
    # published ones for lengths 0, 1 and 1025 (test_vectors.json of the BLAKE3 repository,
    # key "whats the Elvish word for friend", context "BLAKE3 2019-12-27 16:29:52 test vectors context").
    def inp(n):
        return bytes(i % 251 for i in range(n))
    expect = {
        0: "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262",
        1: "2d3adedff11b61f14c886e35afa036736dcd87a74d27b5c1510225d0f592e213",
        1025: "d00278ae47eb27b34faecf67b4fe263f82d5412916c1ffd97c8cb7fb814b8444",
    }
    for n, hexd in expect.items():
        got = plain_hasher().update(inp(n)).xof(32).hex()
        if got != hexd:
            raise AssertionError(f"blake3 self-test failed for length {n}: {got}")
