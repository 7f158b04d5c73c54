"""ristretto255 (RFC 9496) over edwards25519 in extended coordinates, pure Python.

Decoding/encoding (RFC 9496 section 4.3), equality, the one-way map and element derivation
(section 4.3.4), scalar arithmetic modulo L. Variable time; for checking vectors only.
"""

P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493

D = (-121665 * pow(121666, P - 2, P)) % P
SQRT_M1 = 19681161376707505956807079304988542015446066515923890162744021073123829784752
SQRT_AD_MINUS_ONE = 25063068953384623474111414158702152701244531502492656460079210482610430750235
INVSQRT_A_MINUS_D = 54469307008909316920995813868745141605393597292927456921205312896311721017578
ONE_MINUS_D_SQ = 1159843021668779879193775521855586647937357759715417654439879720876111806838
D_MINUS_ONE_SQ = 40440834346308536858101042469323190826248399146238708352240133220865137265952

assert SQRT_M1 * SQRT_M1 % P == P - 1
assert INVSQRT_A_MINUS_D * INVSQRT_A_MINUS_D * (-1 - D) % P == 1
assert ONE_MINUS_D_SQ == (1 - D * D) % P
assert D_MINUS_ONE_SQ == (D - 1) * (D - 1) % P


def _neg(x):
    return x & 1 == 1


def _abs(x):
    return (-x) % P if _neg(x) else x


def sqrt_ratio_m1(u, v):
    u %= P
    v %= P
    v3 = v * v % P * v % P
    v7 = v3 * v3 % P * v % P
    r = u * v3 % P * pow(u * v7 % P, (P - 5) // 8, P) % P
    check = v * r % P * r % P
    correct = check == u
    flipped = check == (-u) % P
    flipped_i = check == (-u) * SQRT_M1 % P
    if flipped or flipped_i:
        r = r * SQRT_M1 % P
    return (correct or flipped), _abs(r)


class Point:
    """An edwards25519 point (X:Y:Z:T) standing for its ristretto255 class."""

    __slots__ = ("x", "y", "z", "t")

    def __init__(self, x, y, z, t):
        self.x, self.y, self.z, self.t = x % P, y % P, z % P, t % P

    def __add__(self, o):
        a = (self.y - self.x) * (o.y - o.x) % P
        b = (self.y + self.x) * (o.y + o.x) % P
        c = self.t * 2 * D * o.t % P
        d = self.z * 2 * o.z % P
        e, f, g, h = b - a, d - c, d + c, b + a
        return Point(e * f, g * h, f * g, e * h)

    def __neg__(self):
        return Point(-self.x, self.y, self.z, -self.t)

    def __sub__(self, o):
        return self + (-o)

    def __mul__(self, k):
        k %= L
        acc = IDENTITY
        base = self
        while k:
            if k & 1:
                acc = acc + base
            base = base + base
            k >>= 1
        return acc

    __rmul__ = __mul__

    def __eq__(self, o):
        return (self.x * o.y - self.y * o.x) % P == 0 or (self.y * o.y - self.x * o.x) % P == 0

    def is_identity(self):
        return self == IDENTITY

    def encode(self):
        x0, y0, z0, t0 = self.x, self.y, self.z, self.t
        u1 = (z0 + y0) * (z0 - y0) % P
        u2 = x0 * y0 % P
        _, invsqrt = sqrt_ratio_m1(1, u1 * u2 * u2)
        den1 = invsqrt * u1 % P
        den2 = invsqrt * u2 % P
        z_inv = den1 * den2 * t0 % P
        if _neg(t0 * z_inv % P):
            x, y = y0 * SQRT_M1 % P, x0 * SQRT_M1 % P
            den_inv = den1 * INVSQRT_A_MINUS_D % P
        else:
            x, y = x0, y0
            den_inv = den2
        if _neg(x * z_inv % P):
            y = (-y) % P
        s = _abs(den_inv * (z0 - y) % P)
        return s.to_bytes(32, "little")


IDENTITY = Point(0, 1, 1, 0)


class DecodeError(Exception):
    pass


def decode(b):
    """RFC 9496 section 4.3.1; raises DecodeError for every invalid encoding."""
    if len(b) != 32:
        raise DecodeError("WrongLength")
    s = int.from_bytes(b, "little")
    if s >= P:
        raise DecodeError("NonCanonical")
    if _neg(s):
        raise DecodeError("NonCanonical")
    ss = s * s % P
    u1 = (1 - ss) % P
    u2 = (1 + ss) % P
    u2_sqr = u2 * u2 % P
    v = (-(D * u1 % P * u1) - u2_sqr) % P
    was_square, invsqrt = sqrt_ratio_m1(1, v * u2_sqr)
    den_x = invsqrt * u2 % P
    den_y = invsqrt * den_x % P * v % P
    x = _abs(2 * s * den_x % P)
    y = u1 * den_y % P
    t = x * y % P
    if not was_square or _neg(t) or y == 0:
        raise DecodeError("NotOnCurve")
    return Point(x, y, 1, t)


def _map(t):
    r = SQRT_M1 * t % P * t % P
    u = (r + 1) * ONE_MINUS_D_SQ % P
    v = (-1 - r * D) * (r + D) % P
    was_square, s = sqrt_ratio_m1(u, v)
    s_prime = (-_abs(s * t % P)) % P
    if not was_square:
        s = s_prime
    c = (P - 1) if was_square else r
    n = (c * (r - 1) % P * D_MINUS_ONE_SQ - v) % P
    w0 = 2 * s * v % P
    w1 = n * SQRT_AD_MINUS_ONE % P
    w2 = (1 - s * s) % P
    w3 = (1 + s * s) % P
    return Point(w0 * w3, w2 * w1, w1 * w3, w0 * w2)


def from_uniform_bytes(b):
    """RFC 9496 section 4.3.4: 64 bytes to an element (two maps, added)."""
    assert len(b) == 64
    mask = (1 << 255) - 1
    t1 = (int.from_bytes(b[:32], "little") & mask) % P
    t2 = (int.from_bytes(b[32:], "little") & mask) % P
    return _map(t1) + _map(t2)


# The standard generator: RFC 9496 section 4.4 (its encoding).
GENERATOR = decode(bytes.fromhex(
    "e2f2ae0a6abc4e71a884a961c500515f58e30b6aa582dd8db6a65945e08d2d76"))

ENCODED_LEN = 32
SCALAR_LEN = 32
NAME = b"ristretto255"


def scalar_decode(b):
    if len(b) != 32:
        raise DecodeError("WrongLength")
    s = int.from_bytes(b, "little")
    if s >= L:
        raise DecodeError("NonCanonical")
    return s


def scalar_encode(s):
    return (s % L).to_bytes(32, "little")


def scalar_from_uniform(b):
    """64 bytes, little-endian, reduced modulo L."""
    return int.from_bytes(b, "little") % L
