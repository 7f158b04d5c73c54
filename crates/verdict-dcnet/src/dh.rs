//! Provable Diffie–Hellman secrets: a participant reveals `K = DH(x_i, Z_j)` with a DLEQ proof.
//!
//! Client `i` (key `X_i = x_i·G`) and server `j` (key `Z_j = z_j·G`) share
//! `K = x_i·Z_j = z_j·X_i`. Either side can publish `K` with a Chaum–Pedersen proof:
//! - client: `PoK{x : X_i = x·G ∧ K = x·Z_j}`,
//! - server: `PoK{z : Z_j = z·G ∧ K = z·X_i}`,
//!
//! after which anyone recomputes whatever was derived from `K` (a hashing-generator pairwise
//! secret in a set-up dispute, an XOR pad bit in a blame rebuttal) and compares it with what
//! each side claimed. The proof binds the suite, session, pair and prover role, so a reveal
//! cannot be replayed for another pair, session or suite.
//!
//! Wire format: `role (1 byte: 0 client, 1 server) ‖ client (u32 LE) ‖ server (u32 LE) ‖ K ‖
//! A_1 ‖ A_2 ‖ z`.

use rand_core::{CryptoRng, RngCore};
use verdict_group::{Group, SecretScalar};
use verdict_nizk::{Context, Dleq, Encoded, Proof, Shape, SigningKey, Statement};
use zeroize::{Zeroize, Zeroizing};

use crate::error::{DcDecodeError, DcError};
use crate::ids::{ClientId, Party, ServerId, SessionId, SuiteId};
use crate::suite::{Ciphersuite, Roster};

const PURPOSE: &[u8] = b"verdict/dcnet/dh-reveal";
const SHAPE: Shape = Shape {
    commitments_g: 1,
    commitments_h: 1,
    responses: 1,
};

/// A revealed pairwise DH value with a proof that it is correct.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DhReveal<G: Group> {
    prover: Party,
    client: ClientId,
    server: ServerId,
    dh: Encoded<G>,
    proof: Proof<G>,
}

fn context(
    suite: &SuiteId,
    session: &SessionId,
    client: ClientId,
    server: ServerId,
    prover: Party,
) -> Context {
    let (role, sender) = match prover {
        Party::Client(c) => (&b"client"[..], c.0),
        Party::Server(s) => (&b"server"[..], s.0),
    };
    Context::new(PURPOSE, session.0)
        .with_sender(sender)
        .with_field(b"suite", &suite.to_bytes())
        .with_field(b"role", role)
        .with_field(b"client", &client.0.to_le_bytes())
        .with_field(b"server", &server.0.to_le_bytes())
}

impl<G: Group> DhReveal<G> {
    /// Client `client` of `roster` reveals, provably, its DH value with server `server` (the
    /// server's key is looked up in the roster; the suite id comes from `C`).
    pub fn reveal_client<C, R>(
        roster: &Roster<C>,
        client: ClientId,
        key: &SigningKey<G>,
        server: ServerId,
        rng: &mut R,
    ) -> Result<Self, DcError>
    where
        C: Ciphersuite<KeyGroup = G>,
        R: RngCore + CryptoRng + ?Sized,
    {
        let z = roster.server(server)?;
        Self::prove_client(
            &C::ID,
            roster.session(),
            client,
            server,
            key.secret(),
            z.point(),
            rng,
        )
    }

    /// Server `server` of `roster` reveals, provably, its DH value with client `client`.
    pub fn reveal_server<C, R>(
        roster: &Roster<C>,
        server: ServerId,
        key: &SigningKey<G>,
        client: ClientId,
        rng: &mut R,
    ) -> Result<Self, DcError>
    where
        C: Ciphersuite<KeyGroup = G>,
        R: RngCore + CryptoRng + ?Sized,
    {
        let x = roster.client(client)?;
        Self::prove_server(
            &C::ID,
            roster.session(),
            client,
            server,
            key.secret(),
            x.point(),
            rng,
        )
    }

    /// Client `client` (secret `x`) reveals its DH value with server `server` (key `server_key`).
    #[allow(clippy::too_many_arguments)]
    pub fn prove_client<R: RngCore + CryptoRng + ?Sized>(
        suite: &SuiteId,
        session: &SessionId,
        client: ClientId,
        server: ServerId,
        x: &SecretScalar<G::Scalar>,
        server_key: &G,
        rng: &mut R,
    ) -> Result<Self, DcError> {
        Self::prove(
            suite,
            session,
            client,
            server,
            Party::Client(client),
            x,
            server_key,
            rng,
        )
    }

    /// Server `server` (secret `z`) reveals its DH value with client `client` (key `client_key`).
    #[allow(clippy::too_many_arguments)]
    pub fn prove_server<R: RngCore + CryptoRng + ?Sized>(
        suite: &SuiteId,
        session: &SessionId,
        client: ClientId,
        server: ServerId,
        z: &SecretScalar<G::Scalar>,
        client_key: &G,
        rng: &mut R,
    ) -> Result<Self, DcError> {
        Self::prove(
            suite,
            session,
            client,
            server,
            Party::Server(server),
            z,
            client_key,
            rng,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn prove<R: RngCore + CryptoRng + ?Sized>(
        suite: &SuiteId,
        session: &SessionId,
        client: ClientId,
        server: ServerId,
        prover: Party,
        secret: &SecretScalar<G::Scalar>,
        other_key: &G,
        rng: &mut R,
    ) -> Result<Self, DcError> {
        let own = G::mul_generator(secret.expose());
        // Revealing the DH value is the point of this function (it settles a dispute or backs
        // a rebuttal, and is published with its proof), so the copy that goes into the reveal
        // is not wiped; the witness copy is.
        let dh = Encoded::new(*other_key * secret.expose());
        let st = Dleq::new(Encoded::generator(), own, *other_key, dh.clone());
        let mut t = context(suite, session, client, server, prover).transcript();
        let witness = Zeroizing::new([*secret.expose()]);
        let proof = st
            .prove(&mut t, &*witness, rng)
            .map_err(|_| DcError::InvalidParameters("DLEQ statement"))?;
        Ok(Self {
            prover,
            client,
            server,
            dh,
            proof,
        })
    }

    /// Who made the reveal.
    pub fn prover(&self) -> Party {
        self.prover
    }
    /// The client of the pair.
    pub fn client(&self) -> ClientId {
        self.client
    }
    /// The server of the pair.
    pub fn server(&self) -> ServerId {
        self.server
    }
    /// The claimed DH value (unverified until [`DhReveal::verify`]).
    pub fn claimed_dh(&self) -> &Encoded<G> {
        &self.dh
    }

    /// Verifies the reveal against the pair's long-term keys and returns the DH value.
    /// An invalid proof names the prover ([`DcError::InvalidDhReveal`]).
    pub fn verify(
        &self,
        suite: &SuiteId,
        session: &SessionId,
        client_key: &G,
        server_key: &G,
    ) -> Result<&Encoded<G>, DcError> {
        let (own, other) = match self.prover {
            Party::Client(_) => (client_key, server_key),
            Party::Server(_) => (server_key, client_key),
        };
        let st = Dleq::new(Encoded::generator(), *own, *other, self.dh.clone());
        let mut t = context(suite, session, self.client, self.server, self.prover).transcript();
        st.verify(&mut t, &self.proof)
            .map_err(|_| DcError::InvalidDhReveal {
                prover: self.prover,
            })?;
        Ok(&self.dh)
    }

    /// Length of the encoding.
    pub fn encoded_len() -> usize {
        9 + G::ENCODED_LEN + SHAPE.encoded_len::<G, G>()
    }

    /// The canonical encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(Self::encoded_len());
        out.push(match self.prover {
            Party::Client(_) => 0,
            Party::Server(_) => 1,
        });
        out.extend_from_slice(&self.client.0.to_le_bytes());
        out.extend_from_slice(&self.server.0.to_le_bytes());
        out.extend_from_slice(self.dh.as_bytes());
        self.proof.write_to(&mut out);
        out
    }

    /// Decodes and validates an encoding.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DcDecodeError> {
        if bytes.len() != Self::encoded_len() {
            return Err(DcDecodeError::Length {
                expected: Self::encoded_len(),
                actual: bytes.len(),
            });
        }
        let (head, rest) = bytes.split_at(9);
        let mut id = [0u8; 4];
        id.copy_from_slice(&head[1..5]);
        let client = ClientId(u32::from_le_bytes(id));
        id.copy_from_slice(&head[5..9]);
        let server = ServerId(u32::from_le_bytes(id));
        let prover = match head[0] {
            0 => Party::Client(client),
            1 => Party::Server(server),
            _ => {
                return Err(DcDecodeError::Field {
                    field: "role",
                    source: verdict_group::DecodeError::NonCanonical,
                });
            }
        };
        let (dh, proof) = rest.split_at(G::ENCODED_LEN);
        let dh = Encoded::from_bytes_nonidentity(dh).map_err(|source| DcDecodeError::Field {
            field: "dh",
            source,
        })?;
        let proof = Proof::from_bytes(proof, SHAPE)?;
        Ok(Self {
            prover,
            client,
            server,
            dh,
            proof,
        })
    }
}

/// The shared DH value `x·P` computed by one side, wiped when the caller drops it.
///
/// `x·P` is as secret as everything derived from it (`s_ij`, the XOR pair keys), so it is
/// returned in a [`Zeroizing`]: callers derive what they need at once and let it go. The point
/// and its encoding are wiped; the intermediate values inside the scalar multiplication and
/// the encoding are the backend's and are not (see `verdict-group`'s notes on constant time
/// and zeroization). `Mul` is the multiplication meant for secret scalars: constant time on
/// ristretto255 and P-256, variable time on BLS12-381.
pub(crate) fn dh_value<G: Group>(
    secret: &SecretScalar<G::Scalar>,
    other: &G,
) -> Zeroizing<Encoded<G>> {
    let mut point = Zeroizing::new(*other * secret.expose());
    let value = Zeroizing::new(Encoded::new(*point));
    point.zeroize();
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use verdict_group::Ristretto255;

    /// Both sides compute the same value, it matches the reveal's (published) value, and it is
    /// wiped on request like any `Zeroizing` content.
    #[test]
    fn dh_value_is_shared_and_wipeable() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(12);
        let x = SecretScalar::<<Ristretto255 as Group>::Scalar>::random(&mut rng);
        let z = SecretScalar::random(&mut rng);
        let big_x = Ristretto255::mul_generator(x.expose());
        let big_z = Ristretto255::mul_generator(z.expose());
        let mut from_client = dh_value(&x, &big_z);
        let from_server = dh_value(&z, &big_x);
        assert_eq!(*from_client, *from_server);
        let expected = big_z * *x.expose();
        assert_eq!(from_client.point(), &expected);
        from_client.zeroize();
        assert!(from_client.point().is_identity());
        assert!(from_client.as_bytes().iter().all(|&b| b == 0));
    }
}
