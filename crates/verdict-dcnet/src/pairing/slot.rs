//! The pairing suite's id, round bases and ciphertexts, and its direct API for one slot of
//! one round: create, verify, server create and verify, reveal.

use rand_core::{CryptoRng, RngCore};
use verdict_group::bls12_381::{G1, G2, Gt, pairing};
use verdict_group::{Group, SecretScalar};
use verdict_nizk::{BatchVerifier, Encoded, Or, Schnorr, Statement, VectorDleq};
use zeroize::Zeroizing;

use super::gt_table::{ChunkBits, GtTable, decode_message, encode_message, max_message_len};
use crate::ids::SuiteId;
use crate::server_dleq;
use crate::verifiable::{
    Culprit, SlotParams, SuiteError, accepted_set_bytes, check_distinct, check_len, sum_elements,
};
use crate::wire::{DleqCiphertext, OrCiphertext};

/// The versioned suite identifier (`verdict/pairing-chunk16/bls12-381/v2` or `…chunk24…`),
/// bound into every proof.
pub fn suite_id(bits: ChunkBits) -> SuiteId {
    let construction = match bits {
        ChunkBits::B16 => "pairing-chunk16",
        ChunkBits::B24 => "pairing-chunk24",
    };
    SuiteId::new(construction, "bls12-381", 2)
}
pub(super) const CLIENT_PURPOSE: &[u8] = b"verdict-dcnet/pairing-bls12-381/v1/client";
pub(super) const SERVER_PURPOSE: &[u8] = b"verdict-dcnet/pairing-bls12-381/v1/server";
/// RFC 9380 domain-separation tag of the round bases `T_{t,k}`.
pub(super) const BASE_DST: &[u8] = b"verdict-dcnet/pairing-bls12-381/v1/round-base";

/// BLS12-381 scalars (shared by G1, G2 and GT).
pub type Fr = <G2 as Group>::Scalar;

/// `T_{t,k} = HashToG1(session ‖ slot ‖ round ‖ k)` for `k = 0..L` (RFC 9380,
/// `BLS12381G1_XMD:SHA-256_SSWU_RO_`, DST `verdict-dcnet/pairing-bls12-381/v1/round-base`).
pub fn round_bases(slot: &SlotParams) -> Vec<G1> {
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
/// Wire format ([`OrCiphertext`]): `C_1 ‖ … ‖ C_L` (576 bytes each) `‖ c_0 ‖ A_{X} (G2) ‖
/// A_{C*} (GT) ‖ s_x ‖ A_Y (G2) ‖ s_y`. Decoding validates every GT element (an exponentiation
/// each) and G2 point.
pub type ClientCiphertext = OrCiphertext<G2, Gt>;

/// A server's ciphertext: `D_1..D_L ∈ GT` and the DLEQ proof.
///
/// Wire format ([`DleqCiphertext`]): `D_1 ‖ … ‖ D_L ‖ A (G2) ‖ A' (GT) ‖ s`.
pub type ServerCiphertext = DleqCiphertext<G2, Gt>;

/// Bytes of a client ciphertext with `l` elements: `576·l + 32 + (96 + 576 + 32) + (96 + 32)`.
pub fn client_ciphertext_len(l: usize) -> usize {
    ClientCiphertext::encoded_len(l)
}

/// Bytes of a server ciphertext with `l` elements: `576·l + 96 + 576 + 32`.
pub fn server_ciphertext_len(l: usize) -> usize {
    ServerCiphertext::encoded_len(l)
}

/// The pairing suite for one slot of one round: the round bases `T_k`, the client bases
/// `H_k = e(T_k, Z)` (computed once, shared by every client and verifier of the slot) and the
/// chunk width.
#[derive(Clone, Debug)]
pub struct PairingSlot {
    slot: SlotParams,
    suite: Vec<u8>,
    bits: ChunkBits,
    bases: Vec<G1>,
    client_bases: Vec<Encoded<Gt>>,
}

impl PairingSlot {
    /// The suite for `slot` with the servers' keys `Z_j ∈ G2` and chunk width `bits`.
    /// Costs `L` hashes to G1 and `L` pairings.
    pub fn new(slot: SlotParams, server_keys: &[G2], bits: ChunkBits) -> Result<Self, SuiteError> {
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
            suite: suite_id(bits).to_bytes(),
            bits,
            bases,
            client_bases: Encoded::batch_new(&h),
        })
    }

    /// The slot parameters.
    pub fn slot(&self) -> &SlotParams {
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
        owner: Option<(&Fr, Zeroizing<Vec<Gt>>)>,
        rng: &mut R,
    ) -> Result<ClientCiphertext, SuiteError> {
        let x = secret.expose();
        let mut c: Vec<Gt> = self.client_bases.iter().map(|h| *h.point() * x).collect();
        if let Some((_, m)) = &owner {
            for (ck, mk) in c.iter_mut().zip(m.iter()) {
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
            .context(CLIENT_PURPOSE, &self.suite, client)
            .transcript();
        let proof = match owner {
            None => or.prove(&mut t, 0, &*Zeroizing::new([*x]), rng),
            Some((y, _)) => or.prove(&mut t, 1, &*Zeroizing::new([*y]), rng),
        }
        .map_err(|_| SuiteError::Parameters("client proof"))?;
        Ok(OrCiphertext { elements: c, proof })
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
        // The encoded message identifies its owner until the reveal: wiped after use.
        let m = Zeroizing::new(encode_message(
            table,
            self.bits,
            message,
            self.slot.elements,
        )?);
        let key = G2::mul_generator(y);
        self.create(client, secret, &key, Some((y, m)), rng)
    }

    fn check_len(&self, culprit: Culprit, actual: usize) -> Result<(), SuiteError> {
        check_len(culprit, self.slot.elements, actual)
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
        let vd = self.client_statement(client_key, &ct.elements)?;
        let owner_branch = Schnorr::with_generator(*pseudonym_key).in_pair::<Gt>();
        let or: Or<'_, G2, Gt> = Or::new(vec![&vd as &dyn Statement<G2, Gt>, &owner_branch])
            .map_err(|_| SuiteError::Parameters("client statement"))?;
        let mut t = self
            .slot
            .context(CLIENT_PURPOSE, &self.suite, client)
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
            let vd = self.client_statement(key, &ct.elements)?;
            let or: Or<'_, G2, Gt> = Or::new(vec![&vd as &dyn Statement<G2, Gt>, &owner_branch])
                .map_err(|_| SuiteError::Parameters("client statement"))?;
            let t = self
                .slot
                .context(CLIENT_PURPOSE, &self.suite, *client)
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

    /// *Server create* by `server` with secret `z_j`, over the accepted set `S` given as
    /// `(client id, X_i)`. Costs `L` pairings and `L` GT exponentiations plus the proof.
    pub fn server_create<R: RngCore + CryptoRng + ?Sized>(
        &self,
        server: u32,
        secret: &SecretScalar<Fr>,
        accepted: &[(u32, G2)],
        rng: &mut R,
    ) -> Result<ServerCiphertext, SuiteError> {
        let (neg_b, set) = self.server_bases(accepted)?;
        let mut t = self
            .slot
            .context(SERVER_PURPOSE, &self.suite, server)
            .with_field(b"accepted-set", &set)
            .transcript();
        // D_k = z_j·(−B_k) with its proof (crate::server_dleq).
        server_dleq::prove(secret.expose(), Encoded::batch_new(&neg_b), &mut t, rng)
            .map_err(|e| e.into_suite(server))
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
        self.check_len(Culprit::Server(server), sct.len())?;
        let (neg_b, set) = self.server_bases(accepted)?;
        let mut t = self
            .slot
            .context(SERVER_PURPOSE, &self.suite, server)
            .with_field(b"accepted-set", &set)
            .transcript();
        server_dleq::verify(*server_key, Encoded::batch_new(&neg_b), sct, &mut t)
            .map_err(|e| e.into_suite(server))
    }

    /// The revealed GT elements `Σ_{i∈S} C_{i,k} + Σ_j D_{j,k}` before decoding.
    pub fn reveal_elements(
        &self,
        clients: &[(u32, &ClientCiphertext)],
        servers: &[(u32, &ServerCiphertext)],
    ) -> Result<Vec<Gt>, SuiteError> {
        let clients = clients
            .iter()
            .map(|(i, ct)| (Culprit::Client(*i), &ct.elements[..]));
        let servers = servers
            .iter()
            .map(|(j, sct)| (Culprit::Server(*j), &sct.elements[..]));
        sum_elements(self.slot.elements, clients.chain(servers))
    }

    /// *Reveal*: combines verified ciphertexts and decodes the chunks with `table`. An empty
    /// slot gives [`GtFrameError::Empty`](super::gt_table::GtFrameError::Empty).
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
