//! The pairing-based verifiable DC-net suite on BLS12-381: no set-up, no ephemeral keys.
//!
//! Written additively (GT too: `a + b` is the `Fq12` product, `x·P` the power). Clients hold
//! `x_i` with `X_i = x_i·g₂ ∈ G2`, servers `z_j` with `Z_j = z_j·g₂`, `Z = Σ_j Z_j`. The slot's
//! pseudonym key `Y = y·g₂` lives in **G2** too: `verdict-nizk` relates at most two groups in
//! one proof (G2 for the keys, GT for the pads), so the OR branch `Y = y·g` must be in one of
//! them.
//!
//! | operation | computation |
//! |---|---|
//! | round bases | `T_{t,k} = HashToG1(session, slot, t, k)` (RFC 9380, unknown discrete log; never `g^h` with a public `h`, which let anyone compute every pad in 2013) |
//! | client pad | `x_i·e(T_{t,k}, Z)` |
//! | cover / owner | `C_k = x_i·H_k` / `C_k = x_i·H_k + Enc(chunk_k)` with `H_k = e(T_{t,k}, Z)` |
//! | client proof | `PoK{x, y : (X_i = x·g₂ ∧ ∀k C_k = x·H_k) ∨ Y = y·g₂}` (folded [`VectorDleq`] over G2/GT in [`Or`]: constant size) |
//! | server | `B_k = e(T_{t,k}, Σ_{i∈S} X_i)`, `D_{j,k} = −z_j·B_k`, proof `PoK{z : Z_j = z·g₂ ∧ ∀k D_{j,k} = z·(−B_k)}` |
//! | reveal | `Σ_{i∈S} C_{i,k} + Σ_j D_{j,k} = Enc(chunk_k)`, decoded with [`gt_table`] |
//!
//! The pads cancel: `Σ_i x_i·e(T, Z) = (Σ_i x_i)(Σ_j z_j)·e(T, g₂) = Σ_j z_j·e(T, Σ_i X_i)`.
//!
//! # Plaintext encoding, capacity and cost
//!
//! Bytes cannot be embedded into GT on BLS12-381 (see [`gt_table`] for why the 2013 torus
//! embedding does not carry over); each 576-byte GT element carries one 16- or 24-bit chunk in
//! its exponent: **2 or 3 bytes per element** (288× or 192× expansion) and the slot carries
//! `L·b/8 − 4` message bytes. Per element (one core, optimized arkworks): a client pays one
//! pairing for `H_k` (shared by all clients of the slot, ≈ 1 ms) and one GT exponentiation
//! (≈ 0.7 ms); a server one pairing and one exponentiation; a receiver one validated GT decode
//! (≈ 0.7 ms: the subgroup check is an exponentiation by `r`); the reveal one table lookup
//! (16-bit) or up to 256 giant steps (24-bit). Plus one hash to G1 per element and round
//! (≈ 0.2 ms). That is a few hundred bytes of plaintext per second per core — this suite is here
//! for completeness and comparison; the hashing-generator suite is the fast one.
//!
//! Lazy verification is possible here (unlike ElGamal): a client's pad is bound to its
//! registered key `X_i`, so a multiple of someone else's ciphertext leaves an unknown pad in the
//! reveal instead of a membership test.
//!
//! **Constant time: none** (arkworks). See `verdict_group::bls12_381`.

pub mod gt_table;

use rand_core::{CryptoRng, RngCore};
use verdict_group::bls12_381::{G1, G2, Gt, pairing};
use verdict_group::{Group, Scalar, SecretScalar};
use verdict_nizk::{
    BatchVerifier, Encoded, Or, OrProof, Proof, Schnorr, Shape, Statement, VectorDleq,
};

use self::gt_table::{ChunkBits, GtTable, decode_message, encode_message, max_message_len};
use crate::verifiable::{
    Culprit, Reader, SlotRound, SuiteError, accepted_set_bytes, check_distinct,
};

/// Versioned suite identifier, bound into every proof and the round bases' hash.
pub const SUITE_ID: &[u8] = b"verdict-dcnet/pairing-bls12-381/v1";
const CLIENT_PURPOSE: &[u8] = b"verdict-dcnet/pairing-bls12-381/v1/client";
const SERVER_PURPOSE: &[u8] = b"verdict-dcnet/pairing-bls12-381/v1/server";
/// RFC 9380 domain-separation tag of the round bases `T_{t,k}`.
const BASE_DST: &[u8] = b"verdict-dcnet/pairing-bls12-381/v1/round-base";

/// BLS12-381 scalars (shared by G1, G2 and GT).
pub type Fr = <G2 as Group>::Scalar;

/// `T_{t,k} = HashToG1(session ‖ slot ‖ round ‖ k)` for `k = 0..L` (RFC 9380,
/// `BLS12381G1_XMD:SHA-256_SSWU_RO_`, DST `verdict-dcnet/pairing-bls12-381/v1/round-base`).
pub fn round_bases(slot: &SlotRound) -> Vec<G1> {
    (0..slot.elements)
        .map(|k| {
            let mut msg = Vec::with_capacity(32 + 4 + 8 + 8);
            msg.extend_from_slice(&slot.session);
            msg.extend_from_slice(&slot.slot.to_le_bytes());
            msg.extend_from_slice(&slot.round.to_le_bytes());
            msg.extend_from_slice(&(k as u64).to_le_bytes());
            G1::hash_to_group(BASE_DST, &msg)
        })
        .collect()
}

/// A client's ciphertext: `C_1..C_L ∈ GT` and the OR proof.
///
/// Wire format: `C_1 ‖ … ‖ C_L` (576 bytes each) `‖ c_0 ‖ A_{X} (G2) ‖ A_{C*} (GT) ‖ s_x ‖
/// A_Y (G2) ‖ s_y`. Decoding validates every GT element (an exponentiation each) and G2 point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientCiphertext {
    c: Vec<Encoded<Gt>>,
    proof: OrProof<G2, Gt>,
}

/// A server's ciphertext: `D_1..D_L ∈ GT` and the DLEQ proof.
///
/// Wire format: `D_1 ‖ … ‖ D_L ‖ A (G2) ‖ A' (GT) ‖ s`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerCiphertext {
    d: Vec<Encoded<Gt>>,
    proof: Proof<G2, Gt>,
}

const DLEQ_SHAPE: Shape = Shape {
    commitments_g: 1,
    commitments_h: 1,
    responses: 1,
};
const SCHNORR_SHAPE: Shape = Shape {
    commitments_g: 1,
    commitments_h: 0,
    responses: 1,
};

/// Bytes of a client ciphertext with `l` elements: `576·l + 32 + (96 + 576 + 32) + (96 + 32)`.
pub fn client_ciphertext_len(l: usize) -> usize {
    l * Gt::ENCODED_LEN
        + <Fr as Scalar>::ENCODED_LEN
        + DLEQ_SHAPE.encoded_len::<G2, Gt>()
        + SCHNORR_SHAPE.encoded_len::<G2, Gt>()
}

/// Bytes of a server ciphertext with `l` elements: `576·l + 96 + 576 + 32`.
pub fn server_ciphertext_len(l: usize) -> usize {
    l * Gt::ENCODED_LEN + DLEQ_SHAPE.encoded_len::<G2, Gt>()
}

impl ClientCiphertext {
    /// The `C_k`.
    pub fn payload(&self) -> &[Encoded<Gt>] {
        &self.c
    }
    /// Number of elements `L`.
    pub fn len(&self) -> usize {
        self.c.len()
    }
    /// Always `false` for ciphertexts built by this module.
    pub fn is_empty(&self) -> bool {
        self.c.is_empty()
    }
    /// The canonical encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(client_ciphertext_len(self.len()));
        for p in &self.c {
            out.extend_from_slice(p.as_bytes());
        }
        out.extend_from_slice(&self.proof.to_bytes());
        out
    }
    /// Decodes and validates a ciphertext of `slot.elements` elements from `client`. Costs
    /// about one GT exponentiation per GT element (subgroup checks).
    pub fn from_bytes(slot: &SlotRound, client: u32, bytes: &[u8]) -> Result<Self, SuiteError> {
        let err = |source| SuiteError::Decode {
            culprit: Culprit::Client(client),
            source,
        };
        let mut rd = Reader::new(bytes);
        let c = rd.points::<Gt>(slot.elements, "C").map_err(err)?;
        let c0 = rd.scalar::<Fr>("challenge").map_err(err)?;
        let p0 = rd.proof::<G2, Gt>(DLEQ_SHAPE).map_err(err)?;
        let p1 = rd.proof::<G2, Gt>(SCHNORR_SHAPE).map_err(err)?;
        rd.finish().map_err(err)?;
        Ok(Self {
            c,
            proof: OrProof::from_parts(vec![c0], vec![p0, p1]),
        })
    }
}

impl ServerCiphertext {
    /// The `D_k`.
    pub fn shares(&self) -> &[Encoded<Gt>] {
        &self.d
    }
    /// The canonical encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(server_ciphertext_len(self.d.len()));
        for p in &self.d {
            out.extend_from_slice(p.as_bytes());
        }
        self.proof.write_to(&mut out);
        out
    }
    /// Decodes and validates a ciphertext of `slot.elements` elements from `server`.
    pub fn from_bytes(slot: &SlotRound, server: u32, bytes: &[u8]) -> Result<Self, SuiteError> {
        let err = |source| SuiteError::Decode {
            culprit: Culprit::Server(server),
            source,
        };
        let mut rd = Reader::new(bytes);
        let d = rd.points::<Gt>(slot.elements, "D").map_err(err)?;
        let proof = rd.proof::<G2, Gt>(DLEQ_SHAPE).map_err(err)?;
        rd.finish().map_err(err)?;
        Ok(Self { d, proof })
    }
}

/// The pairing suite for one slot of one round: the round bases `T_k`, the client bases
/// `H_k = e(T_k, Z)` (computed once, shared by every client and verifier of the slot) and the
/// chunk width.
#[derive(Clone, Debug)]
pub struct PairingSlot {
    slot: SlotRound,
    bits: ChunkBits,
    bases: Vec<G1>,
    client_bases: Vec<Encoded<Gt>>,
}

impl PairingSlot {
    /// The suite for `slot` with the servers' keys `Z_j ∈ G2` and chunk width `bits`.
    /// Costs `L` hashes to G1 and `L` pairings.
    pub fn new(slot: SlotRound, server_keys: &[G2], bits: ChunkBits) -> Result<Self, SuiteError> {
        if slot.elements == 0 {
            return Err(SuiteError::Parameters("a slot needs at least one element"));
        }
        if server_keys.is_empty() {
            return Err(SuiteError::Parameters("no server keys"));
        }
        let z: G2 = server_keys.iter().copied().sum();
        if z.is_identity() {
            return Err(SuiteError::Parameters("joint server key is the identity"));
        }
        let bases = round_bases(&slot);
        let h: Vec<Gt> = bases.iter().map(|t| pairing(t, &z)).collect();
        Ok(Self {
            slot,
            bits,
            bases,
            client_bases: Encoded::batch_new(&h),
        })
    }

    /// The slot parameters.
    pub fn slot(&self) -> &SlotRound {
        &self.slot
    }

    /// The longest message an owner can send in this slot (`L·b/8 − 4` bytes).
    pub fn capacity(&self) -> usize {
        max_message_len(self.bits, self.slot.elements)
    }

    fn client_statement(
        &self,
        client_key: &G2,
        c: &[Encoded<Gt>],
    ) -> Result<VectorDleq<G2, Gt>, SuiteError> {
        VectorDleq::new_in_pair(
            G2::generator(),
            *client_key,
            self.client_bases.clone(),
            c.to_vec(),
        )
        .map_err(|_| SuiteError::Parameters("client statement"))
    }

    fn create<R: RngCore + CryptoRng + ?Sized>(
        &self,
        client: u32,
        secret: &SecretScalar<Fr>,
        pseudonym_key: &G2,
        owner: Option<(&Fr, Vec<Gt>)>,
        rng: &mut R,
    ) -> Result<ClientCiphertext, SuiteError> {
        let x = secret.expose();
        let mut c: Vec<Gt> = self.client_bases.iter().map(|h| *h.point() * x).collect();
        if let Some((_, m)) = &owner {
            for (ck, mk) in c.iter_mut().zip(m) {
                *ck += *mk;
            }
        }
        let c = Encoded::batch_new(&c);
        let vd = self.client_statement(&G2::mul_generator(x), &c)?;
        let owner_branch = Schnorr::with_generator(*pseudonym_key).in_pair::<Gt>();
        let or: Or<'_, G2, Gt> = Or::new(vec![&vd as &dyn Statement<G2, Gt>, &owner_branch])
            .map_err(|_| SuiteError::Parameters("client statement"))?;
        let mut t = self
            .slot
            .context(CLIENT_PURPOSE, SUITE_ID, client)
            .transcript();
        let proof = match owner {
            None => or.prove(&mut t, 0, &[*x], rng),
            Some((y, _)) => or.prove(&mut t, 1, &[*y], rng),
        }
        .map_err(|_| SuiteError::Parameters("client proof"))?;
        Ok(ClientCiphertext { c, proof })
    }

    /// *Cover create* by `client` with long-term secret `x_i`, in a slot owned by
    /// `pseudonym_key ∈ G2`.
    pub fn cover_create<R: RngCore + CryptoRng + ?Sized>(
        &self,
        client: u32,
        secret: &SecretScalar<Fr>,
        pseudonym_key: &G2,
        rng: &mut R,
    ) -> Result<ClientCiphertext, SuiteError> {
        self.create(client, secret, pseudonym_key, None, rng)
    }

    /// *Owner create*: carries `message` (framed into GT chunks with `table`), proved with
    /// the slot's pseudonym secret `y`.
    pub fn owner_create<R: RngCore + CryptoRng + ?Sized>(
        &self,
        client: u32,
        secret: &SecretScalar<Fr>,
        pseudonym_secret: &SecretScalar<Fr>,
        message: &[u8],
        table: &GtTable,
        rng: &mut R,
    ) -> Result<ClientCiphertext, SuiteError> {
        let y = pseudonym_secret.expose();
        let m = encode_message(table, self.bits, message, self.slot.elements)?;
        let key = G2::mul_generator(y);
        self.create(client, secret, &key, Some((y, m)), rng)
    }

    fn check_len(&self, culprit: Culprit, actual: usize) -> Result<(), SuiteError> {
        if actual != self.slot.elements {
            return Err(SuiteError::WrongLength {
                culprit,
                expected: self.slot.elements,
                actual,
            });
        }
        Ok(())
    }

    /// *Client verify*: `client` with public key `X_i`, in a slot owned by `pseudonym_key`.
    pub fn client_verify(
        &self,
        client: u32,
        client_key: &G2,
        pseudonym_key: &G2,
        ct: &ClientCiphertext,
    ) -> Result<(), SuiteError> {
        self.check_len(Culprit::Client(client), ct.len())?;
        let vd = self.client_statement(client_key, &ct.c)?;
        let owner_branch = Schnorr::with_generator(*pseudonym_key).in_pair::<Gt>();
        let or: Or<'_, G2, Gt> = Or::new(vec![&vd as &dyn Statement<G2, Gt>, &owner_branch])
            .map_err(|_| SuiteError::Parameters("client statement"))?;
        let mut t = self
            .slot
            .context(CLIENT_PURPOSE, SUITE_ID, client)
            .transcript();
        or.verify(&mut t, &ct.proof)
            .map_err(|_| SuiteError::ClientProof { client })
    }

    /// *Client verify* for many clients (`(id, X_i, ciphertext)`) in one batch (one MSM per
    /// group; the common bases `H_k` are merged); the error names exactly the invalid clients.
    pub fn client_verify_batch<R: RngCore + CryptoRng + ?Sized>(
        &self,
        pseudonym_key: &G2,
        cts: &[(u32, G2, &ClientCiphertext)],
        rng: &mut R,
    ) -> Result<(), SuiteError> {
        let owner_branch = Schnorr::with_generator(*pseudonym_key).in_pair::<Gt>();
        let mut batch = BatchVerifier::<G2, Gt>::with_capacity(cts.len());
        let mut bad = Vec::new();
        let mut checked = Vec::with_capacity(cts.len());
        for (client, key, ct) in cts {
            if ct.len() != self.slot.elements {
                bad.push(*client);
                continue;
            }
            let vd = self.client_statement(key, &ct.c)?;
            let or: Or<'_, G2, Gt> = Or::new(vec![&vd as &dyn Statement<G2, Gt>, &owner_branch])
                .map_err(|_| SuiteError::Parameters("client statement"))?;
            let t = self
                .slot
                .context(CLIENT_PURPOSE, SUITE_ID, *client)
                .transcript();
            batch.add_or(&or, t, &ct.proof);
            checked.push(*client);
        }
        if let Err(e) = batch.verify(rng) {
            bad.extend(e.invalid.iter().filter_map(|&i| checked.get(i).copied()));
        }
        if bad.is_empty() {
            Ok(())
        } else {
            Err(SuiteError::ClientProofs { clients: bad })
        }
    }

    /// `−B_k = −e(T_k, Σ_{i∈S} X_i)` and the accepted set's id bytes.
    fn server_bases(&self, accepted: &[(u32, G2)]) -> Result<(Vec<Gt>, Vec<u8>), SuiteError> {
        check_distinct(accepted.iter().map(|(i, _)| *i))?;
        let p: G2 = accepted.iter().map(|(_, x)| *x).sum();
        let neg_b = self.bases.iter().map(|t| -pairing(t, &p)).collect();
        Ok((neg_b, accepted_set_bytes(accepted.iter().map(|(i, _)| *i))))
    }

    fn server_statement(
        &self,
        server_key: &G2,
        neg_b: &[Gt],
        d: Vec<Encoded<Gt>>,
    ) -> Result<VectorDleq<G2, Gt>, SuiteError> {
        VectorDleq::new_in_pair(G2::generator(), *server_key, Encoded::batch_new(neg_b), d)
            .map_err(|_| SuiteError::Parameters("server statement"))
    }

    /// *Server create* by `server` with secret `z_j`, over the accepted set `S` given as
    /// `(client id, X_i)`. Costs `L` pairings and `L` GT exponentiations plus the proof.
    pub fn server_create<R: RngCore + CryptoRng + ?Sized>(
        &self,
        server: u32,
        secret: &SecretScalar<Fr>,
        accepted: &[(u32, G2)],
        rng: &mut R,
    ) -> Result<ServerCiphertext, SuiteError> {
        let z = secret.expose();
        let (neg_b, set) = self.server_bases(accepted)?;
        let d = Encoded::batch_new(&neg_b.iter().map(|b| *b * z).collect::<Vec<_>>());
        let st = self.server_statement(&G2::mul_generator(z), &neg_b, d.clone())?;
        let mut t = self
            .slot
            .context(SERVER_PURPOSE, SUITE_ID, server)
            .with_field(b"accepted-set", &set)
            .transcript();
        let proof = st
            .prove(&mut t, &[*z], rng)
            .map_err(|_| SuiteError::Parameters("server proof"))?;
        Ok(ServerCiphertext { d, proof })
    }

    /// *Server verify*: server `server` with key `Z_j`, against the accepted set as the
    /// verifier sees it; a ciphertext over another set is rejected naming the server.
    pub fn server_verify(
        &self,
        server: u32,
        server_key: &G2,
        accepted: &[(u32, G2)],
        sct: &ServerCiphertext,
    ) -> Result<(), SuiteError> {
        self.check_len(Culprit::Server(server), sct.d.len())?;
        let (neg_b, set) = self.server_bases(accepted)?;
        let st = self.server_statement(server_key, &neg_b, sct.d.clone())?;
        let mut t = self
            .slot
            .context(SERVER_PURPOSE, SUITE_ID, server)
            .with_field(b"accepted-set", &set)
            .transcript();
        st.verify(&mut t, &sct.proof)
            .map_err(|_| SuiteError::ServerProof { server })
    }

    /// The revealed GT elements `Σ_{i∈S} C_{i,k} + Σ_j D_{j,k}` before decoding.
    pub fn reveal_elements(
        &self,
        clients: &[(u32, &ClientCiphertext)],
        servers: &[(u32, &ServerCiphertext)],
    ) -> Result<Vec<Gt>, SuiteError> {
        let mut m = vec![Gt::identity(); self.slot.elements];
        for (client, ct) in clients {
            self.check_len(Culprit::Client(*client), ct.len())?;
            for (mk, ck) in m.iter_mut().zip(&ct.c) {
                *mk += *ck.point();
            }
        }
        for (server, sct) in servers {
            self.check_len(Culprit::Server(*server), sct.d.len())?;
            for (mk, dk) in m.iter_mut().zip(&sct.d) {
                *mk += *dk.point();
            }
        }
        Ok(m)
    }

    /// *Reveal*: combines verified ciphertexts and decodes the chunks with `table`. An empty
    /// slot gives [`gt_table::GtFrameError::Empty`].
    pub fn reveal(
        &self,
        clients: &[(u32, &ClientCiphertext)],
        servers: &[(u32, &ServerCiphertext)],
        table: &GtTable,
    ) -> Result<Vec<u8>, SuiteError> {
        let m = self.reveal_elements(clients, servers)?;
        Ok(decode_message(table, self.bits, &m)?)
    }
}
