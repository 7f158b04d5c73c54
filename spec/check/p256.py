"""P-256 (NIST / SEC1) in Jacobian coordinates, pure Python, with verdict's encodings
(spec/groups.md §2.2): 33-byte compressed points, 33 zero bytes for the identity, big-endian
scalars. Variable time; for checking vectors only.
"""

P = 2**256 - 2**224 + 2**192 + 2**96 - 1
L = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
B = 0x5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B
GX = 0x6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296
GY = 0x4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5

ENCODED_LEN = 33
SCALAR_LEN = 32
NAME = b"p256"


class DecodeError(Exception):
    pass


def rhs(x):
    return (x * x * x - 3 * x + B) % P


def sqrt(a):
    """A square root mod P (P ≡ 3 mod 4), or None."""
    r = pow(a, (P + 1) // 4, P)
    return r if r * r % P == a % P else None


class Point:
    __slots__ = ("x", "y", "z")  # Jacobian; z = 0 is the identity

    def __init__(self, x, y, z):
        self.x, self.y, self.z = x % P, y % P, z % P

    def is_identity(self):
        return self.z == 0

    def affine(self):
        zi = pow(self.z, P - 2, P)
        zi2 = zi * zi % P
        return self.x * zi2 % P, self.y * zi2 * zi % P

    def double(self):
        if self.z == 0 or self.y == 0:
            return IDENTITY
        delta = self.z * self.z % P
        gamma = self.y * self.y % P
        beta = self.x * gamma % P
        alpha = 3 * (self.x - delta) * (self.x + delta) % P
        x3 = (alpha * alpha - 8 * beta) % P
        z3 = ((self.y + self.z) ** 2 - gamma - delta) % P
        y3 = (alpha * (4 * beta - x3) - 8 * gamma * gamma) % P
        return Point(x3, y3, z3)

    def __add__(self, o):
        if self.z == 0:
            return o
        if o.z == 0:
            return self
        z1z1 = self.z * self.z % P
        z2z2 = o.z * o.z % P
        u1 = self.x * z2z2 % P
        u2 = o.x * z1z1 % P
        s1 = self.y * o.z * z2z2 % P
        s2 = o.y * self.z * z1z1 % P
        h = (u2 - u1) % P
        r = 2 * (s2 - s1) % P
        if h == 0:
            return self.double() if r == 0 else IDENTITY
        i = 4 * h * h % P
        j = h * i % P
        v = u1 * i % P
        x3 = (r * r - j - 2 * v) % P
        y3 = (r * (v - x3) - 2 * s1 * j) % P
        z3 = ((self.z + o.z) ** 2 - z1z1 - z2z2) * h % P
        return Point(x3, y3, z3)

    def __neg__(self):
        return Point(self.x, -self.y, self.z)

    def __sub__(self, o):
        return self + (-o)

    def __mul__(self, k):
        k %= L
        acc = IDENTITY
        for bit in bin(k)[2:] if k else "":
            acc = acc.double()
            if bit == "1":
                acc = acc + self
        return acc

    __rmul__ = __mul__

    def __eq__(self, o):
        if self.z == 0 or o.z == 0:
            return self.z == 0 and o.z == 0
        z1z1, z2z2 = self.z * self.z % P, o.z * o.z % P
        return (self.x * z2z2 - o.x * z1z1) % P == 0 and \
            (self.y * z2z2 * o.z - o.y * z1z1 * self.z) % P == 0

    def encode(self):
        if self.z == 0:
            return bytes(33)
        x, y = self.affine()
        return bytes([2 | (y & 1)]) + x.to_bytes(32, "big")


IDENTITY = Point(1, 1, 0)
GENERATOR = Point(GX, GY, 1)


def from_affine(x, y):
    return Point(x, y, 1)


def decode(b):
    if len(b) != 33:
        raise DecodeError("WrongLength")
    if b == bytes(33):
        return IDENTITY
    if b[0] not in (2, 3):
        raise DecodeError("NonCanonical")
    x = int.from_bytes(b[1:], "big")
    if x >= P:
        raise DecodeError("NonCanonical")
    y = sqrt(rhs(x))
    if y is None:
        raise DecodeError("NotOnCurve")
    if y & 1 != b[0] & 1:
        y = P - y
    return Point(x, y, 1)


def scalar_decode(b):
    if len(b) != 32:
        raise DecodeError("WrongLength")
    s = int.from_bytes(b, "big")
    if s >= L:
        raise DecodeError("NonCanonical")
    return s


def scalar_encode(s):
    return (s % L).to_bytes(32, "big")


def scalar_from_uniform(b):
    """64 bytes as one big-endian 512-bit integer, reduced modulo L."""
    return int.from_bytes(b, "big") % L


def hash_to_group_from(reader):
    """Try-and-increment over an XOF byte reader (spec/groups.md §3.3)."""
    while True:
        x = int.from_bytes(reader(32), "big")
        if x >= P:
            continue
        y = sqrt(rhs(x))
        if y is None:
            continue
        parity = reader(1)[0] & 1
        if y & 1 != parity:
            y = P - y
        return Point(x, y, 1)


assert GY * GY % P == rhs(GX)
