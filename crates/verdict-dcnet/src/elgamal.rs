//! The ElGamal-style verifiable DC-net suite (eager verification only), generic over any
//! [`MessageGroup`] (ristretto255, P-256).
//!
//! Written additively (`r·g` for `g^r`). Servers `j` hold `z_j` with `Z_j = z_j·g`; the joint
//! key is `Z = Σ_j Z_j`. The slot's pseudonym key is `Y = y·g`.
//!
//! | operation | computation |
//! |---|---|
//! | cover create | fresh `r_k`; `R_k = r_k·g`, `C_k = r_k·Z`; proof branch 0 with `r_1..r_L` |
//! | owner create | same with `C_k = r_k·Z + M_k` (`M` = the framed message); proof branch 1 with `y, r_1..r_L` |
//! | client proof | `PoK{r_1..r_L, y : (∀k R_k = r_k·g ∧ C_k = r_k·Z) ∨ (Y = y·g ∧ ∀k R_k = r_k·g)}` ([`Or`] of two [`LinearRelation`]s: `L` witnesses and `2L` equations, `L + 1` witnesses and `L + 1` equations) |
//! | server create | `P_k = Σ_{i∈S} R_{i,k}`, `D_{j,k} = −z_j·P_k`, proof `PoK{z : Z_j = z·g ∧ ∀k D_{j,k} = z·(−P_k)}` ([`VectorDleq`]) |
//! | reveal | `M_k = Σ_{i∈S} C_{i,k} + Σ_j D_{j,k}`, then [`verdict_group::framing::decode_message`] |
//!
//! Correctness: `Σ_i C_{i,k} = (Σ_i r_{i,k})·Z + M_k` and `Σ_j D_{j,k} = −(Σ_j z_j)(Σ_i r_{i,k})·g`.
//!
//! # Why it must be verified eagerly
//!
//! ElGamal ciphertexts are malleable and, unlike the hashing-generator and pairing pads, not
//! bound to a long-term key: the servers strip `z·Σ R` from *whatever* pairs `(R, C)` they
//! receive. A dishonest client can therefore submit a multiple `(λ·R_i, λ·C_i)` of an honest
//! client `i`'s ciphertext; it contributes `λ·(C_i − Z·r_i) = λ·M_i` to the reveal, so the slot
//! reveals `(1 + λ)·M` if client `i` owns it and `M` otherwise — a targeted de-anonymization.
//! Only the proof of knowledge of the `r_k` (which the attacker, not knowing `λ·r_{i,k}`,
//! cannot make) stops this, and it must be checked **before** the servers publish their
//! ciphertexts: lazy verification (check proofs only when the owner's signature fails after the
//! reveal) would detect the attack after anonymity is already lost, and the plaintext is not
//! bound to the pseudonym otherwise.
//!
//! The suite says so with [`Ciphersuite::EAGER_ONLY`] `= true` (the other suites are `false`).
//!
//! # Why the owner branch proves the `r_k` too (suite version 2)
//!
//! Version 1 proved `(∧_k C_k = r_k·Z ∧ R_k = r_k·g) ∨ Y = y·g`: the owner branch left every
//! `R_k` unconstrained. The slot owner (who knows `y`) could put *any* point `P` in its `R_k`
//! — typically `R'_{i,k}` copied from an honest client's ciphertext of an earlier round — and
//! eager verification accepted it. Each server then publishes `D_{j,k} = −z_j·Σ_{i∈S} R_{i,k}`,
//! the honest clients' parts cancel, and the reveal is
//! `Σ_i C_{i,k} + Σ_j D_{j,k} = C_k − (Σ_j z_j)·P` with `C_k` chosen by the attacker: the
//! servers act as a static Diffie–Hellman oracle on their keys. With `P = R'_{i,k}` the
//! answer is `r'·Z`, the victim's pad, and `C'_{i,k} − r'·Z` is its past plaintext element
//! (the identity for a cover, a message for an owner): the victim is de-anonymized, in eager
//! mode, by an attacker who needs only the raw sums (one colluding server, which also learns
//! `z_h·P` for each honest server `h` by removing the colluders' shares).
//!
//! Version 2 adds `∀k R_k = r_k·g` to the owner branch. Whichever branch is real, the
//! submitter now proves knowledge of every `r_k` (the knowledge extractor of the OR proof
//! yields them from either branch), so every `z_j·R_{i,k}` the servers help compute is
//! `r_{i,k}·Z_j`, which its sender could compute alone: the servers answer only questions
//! whose answers the asker already has. The owner knows its `r_k` (it drew them), so honest
//! owners lose nothing; the test `owner_branch_is_not_a_dh_oracle` runs the attack and checks
//! that the forged ciphertext is rejected, alone and in a batch, naming its sender.
//!
//! # Sizes (Figure 6 of the paper: 3L + O(1))
//!
//! A client ciphertext is `2L` elements (`R_k`, `C_k`) plus the OR proof. The proofs of
//! `verdict-nizk` carry their commitments explicitly (so that servers can batch-verify N
//! clients with one MSM and name culprits): the cover branch has `2L` commitments and `L`
//! responses, the owner branch `L + 1` and `L + 1`, plus one challenge — `5L + 1` elements and
//! `2L + 2` scalars on the wire in total (ristretto255: `32·(7L + 3)` bytes; P-256:
//! `229·L + 97`). Version 1 had `4L + 1` elements and `L + 2` scalars (ristretto255:
//! `32·(5L + 3)` bytes): the fix costs `L` commitments and `L` responses, ≈ 1.4× the client
//! ciphertext. The paper's `3L + O(1)` is `2L` elements plus `L` responses in the compact
//! `(challenge, responses)` form — the shape of version 1's proof, whose owner branch has no
//! per-element witnesses; the compact form of this proof would be `2L` elements plus `2L + 1`
//! responses and a challenge, `4L + O(1)`.
//! [`client_ciphertext_len`] gives the exact byte count.
//!
//! # Measured cost
//!
//! `benches/fig5.rs` (ids `fig5/elgamal/<group>/<op>/<bytes>`); numbers with the machine and
//! date in `docs/PERFORMANCE.md`. Per element a client pays two constant-time multiplications
//! (`r_k·g`, `r_k·Z`) plus its share of the OR proof (`3L + 1` commitments, one branch real
//! and one simulated); a verifier checks `3L + 1` equations. Against version 1 (`2L + 1`) that
//! made generation ≈ 1.1–1.5× and verification ≈ 1.3–1.5× slower (A/B of short criterion runs
//! on the shared 2-vCPU test VM). At 1 KB slots, ristretto255: cover ≈ 7.1 ms (≈ 145 KB/s of
//! plaintext), owner ≈ 8.0 ms, verify ≈ 3.5 ms, a batch of 32 ≈ 27 ms (≈ 1.2 MB/s); P-256:
//! cover ≈ 9.9 ms (≈ 100 KB/s, still ≈ 5× the 2013 prototype's 18 KB/s), owner ≈ 12.3 ms,
//! verify ≈ 9.5 ms, a batch of 32 ≈ 44 ms.
//!
//! # Constant time
//! The secret scalars (`r_k`, `y`, `z_j`) are multiplied with the group's constant-time
//! operations where the backend has them (ristretto255); P-256 is variable time
//! (see `verdict_group`'s notes). Message embedding is variable time in the plaintext.

use core::fmt;
use core::marker::PhantomData;

use rand_core::{CryptoRng, RngCore};
use verdict_group::codec::Reader;
use verdict_group::framing::{self, decode_message, encode_message};
use verdict_nizk::wire::ReaderExt;
use verdict_group::{FrameError, Group, MessageGroup, Ristretto255, Scalar, SecretScalar};
use verdict_nizk::{
    BatchVerifier, DecodeError, Encoded, LinearRelation, Or, OrProof, Shape, SigningKey, Statement,
};
use zeroize::Zeroizing;

use crate::error::{DcError, SetupError, DcDecodeError};
use crate::ids::{ClientId, ServerId, SlotRound, SuiteId};
use crate::shared::{check_roster_key, combine_no_setup, indexed_servers};
use crate::suite::{
    Ciphersuite, MAX_SLOT_LEN, PreparedSlot, Roster, Session, Verifiable, check_accepted,
};
use crate::verifiable::{
    Culprit, SlotParams, SuiteError, accepted_set_bytes, batch_outcome, check_distinct, check_len,
    read_proof, sum_elements,
};
use crate::server_dleq;
use crate::wire::{DleqCiphertext, decode_exact, write_elements};

/// Version 2: the owner branch of the client proof also proves the `r_k` (see the module docs);
/// version 1's proofs and wire format are not accepted.
const VERSION: u32 = 2;

/// The versioned suite identifier (`verdict/elgamal/<group>/v2`), bound into every proof.
pub fn suite_id<G: Group>() -> SuiteId {
    SuiteId::new("elgamal", G::NAME, VERSION)
}
const CLIENT_PURPOSE: &[u8] = b"verdict-dcnet/elgamal/v1/client";
const SERVER_PURPOSE: &[u8] = b"verdict-dcnet/elgamal/v1/server";

/// A client's ciphertext for one slot: `R_1..R_L`, `C_1..C_L` and the OR proof.
///
/// Wire format (no length fields; `L` is fixed by the slot):
/// `R_1 ‖ … ‖ R_L ‖ C_1 ‖ … ‖ C_L ‖ c_0 ‖ A_{R,1} ‖ A_{C,1} ‖ … ‖ A_{R,L} ‖ A_{C,L} ‖ s_1 ‖ … ‖ s_L ‖
/// A_Y ‖ A'_{R,1} ‖ … ‖ A'_{R,L} ‖ s_y ‖ s'_1 ‖ … ‖ s'_L`
/// (the OR proof in `verdict-nizk`'s canonical form: branch-0 challenge, branch-0 proof, then
/// the branch-1 proof of `Y = y·g ∧ ∀k R_k = r_k·g`, commitments before responses). Every
/// element and scalar is validated on decoding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientCiphertext<G: Group> {
    r: Vec<Encoded<G>>,
    c: Vec<Encoded<G>>,
    proof: OrProof<G>,
}

/// A server's ciphertext for one slot: `D_1..D_L` and the DLEQ proof.
///
/// Wire format: `D_1 ‖ … ‖ D_L ‖ A_g ‖ A_h ‖ s` ([`DleqCiphertext`]).
pub type ServerCiphertext<G> = DleqCiphertext<G>;

fn client_shapes(l: usize) -> [Shape; 2] {
    [
        Shape {
            commitments_g: 2 * l,
            commitments_h: 0,
            responses: l,
        },
        // Owner branch: `Y = y·g` and the `L` equations `R_k = r_k·g`.
        Shape {
            commitments_g: l + 1,
            commitments_h: 0,
            responses: l + 1,
        },
    ]
}

/// Bytes of a client ciphertext with `l` elements.
pub fn client_ciphertext_len<G: Group>(l: usize) -> usize {
    let [b0, b1] = client_shapes(l);
    2 * l * G::ENCODED_LEN
        + <G::Scalar as Scalar>::ENCODED_LEN
        + b0.encoded_len::<G, G>()
        + b1.encoded_len::<G, G>()
}

/// Bytes of a server ciphertext with `l` elements.
pub fn server_ciphertext_len<G: Group>(l: usize) -> usize {
    DleqCiphertext::<G>::encoded_len(l)
}

impl<G: Group> ClientCiphertext<G> {
    /// The `R_k`.
    pub fn randomness(&self) -> &[Encoded<G>] {
        &self.r
    }
    /// The `C_k`.
    pub fn payload(&self) -> &[Encoded<G>] {
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
        let mut out = Vec::with_capacity(client_ciphertext_len::<G>(self.len()));
        write_elements(&mut out, &self.r);
        write_elements(&mut out, &self.c);
        out.extend_from_slice(&self.proof.to_bytes());
        out
    }
    /// Decodes and validates a ciphertext of `slot.elements` elements sent by `client`.
    pub fn from_bytes(slot: &SlotParams, client: u32, bytes: &[u8]) -> Result<Self, SuiteError> {
        Self::read(Reader::new(bytes), slot.elements).map_err(|source| SuiteError::Decode {
            culprit: Culprit::Client(client),
            source,
        })
    }

    /// Decodes exactly [`client_ciphertext_len`]`(l)` bytes.
    pub fn decode(l: usize, bytes: &[u8]) -> Result<Self, DcDecodeError> {
        decode_exact(client_ciphertext_len::<G>(l), bytes, |rd| Self::read(rd, l))
    }

    fn read(mut rd: Reader<'_>, l: usize) -> Result<Self, DecodeError> {
        let r = rd.encoded_list::<G>("R", l)?;
        let c = rd.encoded_list::<G>("C", l)?;
        let c0 = rd.scalar::<G::Scalar>("challenge")?;
        let [s0, s1] = client_shapes(l);
        let p0 = read_proof::<G, G>(&mut rd, s0)?;
        let p1 = read_proof::<G, G>(&mut rd, s1)?;
        rd.finish()?;
        Ok(Self {
            r,
            c,
            proof: OrProof::from_parts(vec![c0], vec![p0, p1]),
        })
    }
}

/// The ElGamal suite for one slot of one round: the slot parameters and the servers' joint key.
#[derive(Clone, Debug)]
pub struct ElGamalSlot<G: Group> {
    slot: SlotParams,
    suite: Vec<u8>,
    joint_key: Encoded<G>,
}

impl<G: MessageGroup> ElGamalSlot<G> {
    /// The suite for `slot`, with the servers' public keys `Z_j` (joint key `Z = Σ Z_j`).
    pub fn new(slot: SlotParams, server_keys: &[G]) -> Result<Self, SuiteError> {
        if slot.elements == 0 {
            return Err(SuiteError::Parameters("a slot needs at least one element"));
        }
        if server_keys.is_empty() {
            return Err(SuiteError::Parameters("no server keys"));
        }
        let z: G = server_keys.iter().copied().sum();
        if z.is_identity() {
            return Err(SuiteError::Parameters("joint server key is the identity"));
        }
        Ok(Self {
            slot,
            suite: suite_id::<G>().to_bytes(),
            joint_key: Encoded::new(z),
        })
    }

    /// The slot parameters.
    pub fn slot(&self) -> &SlotParams {
        &self.slot
    }

    /// The longest message an owner can send in this slot.
    pub fn capacity(&self) -> usize {
        verdict_group::framing::max_message_len::<G>(self.slot.elements)
    }

    /// The two branches of the client proof for `(R, C)` in a slot with pseudonym key `Y`:
    ///
    /// - cover (branch 0), witnesses `r_1..r_L`: `∀k R_k = r_k·g ∧ C_k = r_k·Z`;
    /// - owner (branch 1), witnesses `y, r_1..r_L`: `Y = y·g ∧ ∀k R_k = r_k·g`.
    ///
    /// The `R_k = r_k·g` equations are in *both* branches because the servers multiply the
    /// `R_k` by their secrets and the reveal exposes the result: an `R_k` whose discrete log
    /// its sender does not know would turn the servers into a static DH oracle (see the module
    /// docs). Which branch is real stays hidden by the OR proof.
    fn client_branches(
        &self,
        pseudonym_key: &Encoded<G>,
        r: &[Encoded<G>],
        c: &[Encoded<G>],
    ) -> Result<[LinearRelation<G>; 2], SuiteError> {
        let bad = |_| SuiteError::Parameters("client relation");
        let g = Encoded::<G>::generator();
        let mut cover = LinearRelation::new(r.len());
        for (k, (rk, ck)) in r.iter().zip(c).enumerate() {
            cover
                .add_equation(rk.clone(), [(k, g.clone())])
                .and_then(|rel| rel.add_equation(ck.clone(), [(k, self.joint_key.clone())]))
                .map_err(bad)?;
        }
        // Witness 0 is `y`, witness `1 + k` is `r_k`.
        let mut owner = LinearRelation::new(r.len() + 1);
        owner
            .add_equation(pseudonym_key.clone(), [(0, g.clone())])
            .map_err(bad)?;
        for (k, rk) in r.iter().enumerate() {
            owner
                .add_equation(rk.clone(), [(k + 1, g.clone())])
                .map_err(bad)?;
        }
        Ok([cover, owner])
    }

    fn create<R: RngCore + CryptoRng + ?Sized>(
        &self,
        client: u32,
        pseudonym_key: &Encoded<G>,
        owner: Option<(&G::Scalar, Zeroizing<Vec<G>>)>,
        rng: &mut R,
    ) -> Result<ClientCiphertext<G>, SuiteError> {
        let l = self.slot.elements;
        // Wiped on every return path: the `r_k` are the pads' discrete logs, and for an owner
        // `r_k·Z + M_k` before encoding identifies the message.
        let rs: Zeroizing<Vec<G::Scalar>> =
            Zeroizing::new((0..l).map(|_| G::Scalar::random(rng)).collect());
        let z = *self.joint_key.point();
        let r_points: Vec<G> = rs.iter().map(G::mul_generator).collect();
        let mut c_points: Zeroizing<Vec<G>> = Zeroizing::new(rs.iter().map(|r| z * r).collect());
        if let Some((_, m)) = &owner {
            for (c, m) in c_points.iter_mut().zip(m.iter()) {
                *c += *m;
            }
        }
        let r = Encoded::batch_new(&r_points);
        let c = Encoded::batch_new(&c_points);
        let [cover, owner_branch] = self.client_branches(pseudonym_key, &r, &c)?;
        let or = Or::new(vec![&cover as &dyn Statement<G>, &owner_branch])
            .map_err(|_| SuiteError::Parameters("client statement"))?;
        let mut t = self
            .slot
            .context(CLIENT_PURPOSE, &self.suite, client)
            .transcript();
        let proof = match owner {
            None => or.prove(&mut t, 0, &rs, rng),
            Some((y, _)) => {
                let mut witness = Zeroizing::new(Vec::with_capacity(l + 1));
                witness.push(*y);
                witness.extend_from_slice(&rs);
                or.prove(&mut t, 1, &witness, rng)
            }
        };
        let proof = proof.map_err(|_| SuiteError::Parameters("client proof"))?;
        Ok(ClientCiphertext { r, c, proof })
    }

    /// *Cover create*: a ciphertext carrying no message, in a slot owned by `pseudonym_key`.
    pub fn cover_create<R: RngCore + CryptoRng + ?Sized>(
        &self,
        client: u32,
        pseudonym_key: &G,
        rng: &mut R,
    ) -> Result<ClientCiphertext<G>, SuiteError> {
        self.create(client, &Encoded::new(*pseudonym_key), None, rng)
    }

    /// *Owner create*: a ciphertext carrying `message`, proved with the slot's pseudonym
    /// secret `y` (its public key is `y·g`).
    pub fn owner_create<R: RngCore + CryptoRng + ?Sized>(
        &self,
        client: u32,
        pseudonym_secret: &SecretScalar<G::Scalar>,
        message: &[u8],
        rng: &mut R,
    ) -> Result<ClientCiphertext<G>, SuiteError> {
        let y = pseudonym_secret.expose();
        let m = Zeroizing::new(encode_message::<G>(message, self.slot.elements)?);
        let key = Encoded::new(G::mul_generator(y));
        self.create(client, &key, Some((y, m)), rng)
    }

    fn check_len(&self, culprit: Culprit, actual: usize) -> Result<(), SuiteError> {
        check_len(culprit, self.slot.elements, actual)
    }

    /// *Client verify*: checks `client`'s ciphertext and proof for this slot, whose pseudonym
    /// key is `pseudonym_key`.
    pub fn client_verify(
        &self,
        client: u32,
        pseudonym_key: &G,
        ct: &ClientCiphertext<G>,
    ) -> Result<(), SuiteError> {
        self.check_len(Culprit::Client(client), ct.len())?;
        let [cover, owner] = self.client_branches(&Encoded::new(*pseudonym_key), &ct.r, &ct.c)?;
        let or = Or::new(vec![&cover as &dyn Statement<G>, &owner])
            .map_err(|_| SuiteError::Parameters("client statement"))?;
        let mut t = self
            .slot
            .context(CLIENT_PURPOSE, &self.suite, client)
            .transcript();
        or.verify(&mut t, &ct.proof)
            .map_err(|_| SuiteError::ClientProof { client })
    }

    /// *Client verify* for many clients at once (one MSM); on failure the error names exactly
    /// the clients whose proofs are invalid. `rng` draws the batching weights.
    pub fn client_verify_batch<R: RngCore + CryptoRng + ?Sized>(
        &self,
        pseudonym_key: &G,
        cts: &[(u32, &ClientCiphertext<G>)],
        rng: &mut R,
    ) -> Result<(), SuiteError> {
        // Encoded once: every client's owner branch starts with the same `Y = y·g`.
        let key = Encoded::new(*pseudonym_key);
        let mut batch = BatchVerifier::<G>::with_capacity(cts.len());
        let mut wrong_len = Vec::new();
        for (client, ct) in cts {
            if ct.len() != self.slot.elements {
                wrong_len.push(*client);
                continue;
            }
            let [cover, owner] = self.client_branches(&key, &ct.r, &ct.c)?;
            let or = Or::new(vec![&cover as &dyn Statement<G>, &owner])
                .map_err(|_| SuiteError::Parameters("client statement"))?;
            let t = self
                .slot
                .context(CLIENT_PURPOSE, &self.suite, *client)
                .transcript();
            batch.add_or(&or, t, &ct.proof);
        }
        let checked: Vec<u32> = cts
            .iter()
            .filter(|(_, ct)| ct.len() == self.slot.elements)
            .map(|(i, _)| *i)
            .collect();
        let mut bad = wrong_len;
        if let Err(e) = batch.verify(rng) {
            bad.extend(e.invalid.iter().filter_map(|&i| checked.get(i).copied()));
        }
        if bad.is_empty() {
            Ok(())
        } else {
            Err(SuiteError::ClientProofs { clients: bad })
        }
    }

    /// `P_k = Σ_{i∈S} R_{i,k}` and the accepted set's id bytes.
    fn combine_r(
        &self,
        accepted: &[(u32, &ClientCiphertext<G>)],
    ) -> Result<(Vec<G>, Vec<u8>), SuiteError> {
        check_distinct(accepted.iter().map(|(i, _)| *i))?;
        let mut p = vec![G::identity(); self.slot.elements];
        for (client, ct) in accepted {
            self.check_len(Culprit::Client(*client), ct.len())?;
            for (pk, rk) in p.iter_mut().zip(&ct.r) {
                *pk += *rk.point();
            }
        }
        Ok((p, accepted_set_bytes(accepted.iter().map(|(i, _)| *i))))
    }

    /// *Server create*: server `server` with secret `z_j` combines the accepted set `S`
    /// (client ids with their verified ciphertexts).
    pub fn server_create<R: RngCore + CryptoRng + ?Sized>(
        &self,
        server: u32,
        secret: &SecretScalar<G::Scalar>,
        accepted: &[(u32, &ClientCiphertext<G>)],
        rng: &mut R,
    ) -> Result<ServerCiphertext<G>, SuiteError> {
        let (p, set) = self.combine_r(accepted)?;
        let neg_p: Vec<G> = p.iter().map(|pk| -*pk).collect();
        let mut t = self
            .slot
            .context(SERVER_PURPOSE, &self.suite, server)
            .with_field(b"accepted-set", &set)
            .transcript();
        // D_k = z_j·(−P_k) with its proof (crate::server_dleq).
        server_dleq::prove(secret.expose(), Encoded::batch_new(&neg_p), &mut t, rng)
            .map_err(|e| e.into_suite(server))
    }

    /// *Server verify*: checks server `server`'s ciphertext against its key `Z_j` and the
    /// accepted set `S` as the verifier sees it; a ciphertext over any other set is rejected
    /// naming the server.
    pub fn server_verify(
        &self,
        server: u32,
        server_key: &G,
        accepted: &[(u32, &ClientCiphertext<G>)],
        sct: &ServerCiphertext<G>,
    ) -> Result<(), SuiteError> {
        self.check_len(Culprit::Server(server), sct.len())?;
        let (p, set) = self.combine_r(accepted)?;
        let neg_p: Vec<G> = p.iter().map(|pk| -*pk).collect();
        let mut t = self
            .slot
            .context(SERVER_PURPOSE, &self.suite, server)
            .with_field(b"accepted-set", &set)
            .transcript();
        server_dleq::verify(*server_key, Encoded::batch_new(&neg_p), sct, &mut t)
            .map_err(|e| e.into_suite(server))
    }

    /// *Reveal*: `M_k = Σ_{i∈S} C_{i,k} + Σ_j D_{j,k}`, decoded as a framed message. Call only
    /// on verified ciphertexts. An empty slot gives [`verdict_group::FrameError::Empty`].
    pub fn reveal(
        &self,
        accepted: &[(u32, &ClientCiphertext<G>)],
        servers: &[(u32, &ServerCiphertext<G>)],
    ) -> Result<Vec<u8>, SuiteError> {
        Ok(decode_message::<G>(
            &self.reveal_elements(accepted, servers)?,
        )?)
    }

    /// The revealed elements `M_k` before decoding.
    pub fn reveal_elements(
        &self,
        accepted: &[(u32, &ClientCiphertext<G>)],
        servers: &[(u32, &ServerCiphertext<G>)],
    ) -> Result<Vec<G>, SuiteError> {
        let clients = accepted
            .iter()
            .map(|(i, ct)| (Culprit::Client(*i), ct.payload()));
        let servers = servers
            .iter()
            .map(|(j, sct)| (Culprit::Server(*j), &sct.elements[..]));
        sum_elements(self.slot.elements, clients.chain(servers))
    }
}

// ---------------------------------------------------------------------------------------------
// The `Ciphersuite` / `Verifiable` implementation.
// ---------------------------------------------------------------------------------------------

/// The ElGamal-style suite as a [`Ciphersuite`] (eager verification only; see the module
/// docs). No set-up: pads are fresh per element. Keys and pseudonym keys are Schnorr keys in
/// `G`; slot capacities are converted to elements with
/// [`verdict_group::framing::elements_needed`].
pub struct ElGamal<G: MessageGroup = Ristretto255>(PhantomData<fn() -> G>);

impl<G: MessageGroup> fmt::Debug for ElGamal<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ElGamal<{}>", G::NAME)
    }
}

/// A client's per-session state. The ElGamal suite draws fresh randomness per element, so the
/// only state is the client's index (its long-term key signs submissions elsewhere).
#[derive(Debug)]
pub struct ElGamalClientState {
    client: ClientId,
}

/// A server's per-session state: its index and secret `z_j` (zeroized on drop).
#[derive(Debug)]
pub struct ElGamalServerState<G: Group> {
    server: ServerId,
    secret: SecretScalar<G::Scalar>,
}

fn elements_for<G: MessageGroup>(len: usize) -> Result<usize, DcDecodeError> {
    if len > MAX_SLOT_LEN {
        return Err(DcDecodeError::CapacityTooLarge);
    }
    Ok(framing::elements_needed::<G>(len))
}

impl<G: MessageGroup> ElGamal<G> {
    fn params(session: &Session<Self>, slot: SlotRound) -> Result<SlotParams, DcError> {
        Ok(SlotParams {
            session: session.id().0,
            round: slot.round,
            slot: slot.slot,
            elements: elements_for::<G>(slot.len)?,
        })
    }

    fn dc(slot: &PreparedSlot<Self>) -> impl Fn(SuiteError) -> DcError + '_ {
        move |e| e.into_dc(slot.slot(), slot.len())
    }

    fn raw<'a, T>(accepted: &[(ClientId, &'a T)]) -> Vec<(u32, &'a T)> {
        accepted.iter().map(|(c, ct)| (c.0, *ct)).collect()
    }
}

impl<G: MessageGroup> Ciphersuite for ElGamal<G> {
    const ID: SuiteId = SuiteId::new("elgamal", G::NAME, VERSION);
    const EAGER_ONLY: bool = true;

    type KeyGroup = G;
    type ClientSetup = ();
    type ServerSetup = ();
    type SessionPublic = ();
    type ClientState = ElGamalClientState;
    type ServerState = ElGamalServerState<G>;
    type SlotData = ElGamalSlot<G>;
    type ClientCiphertext = ClientCiphertext<G>;
    type ServerCiphertext = ServerCiphertext<G>;

    fn client_setup<R: RngCore + CryptoRng + ?Sized>(
        roster: &Roster<Self>,
        client: ClientId,
        key: &SigningKey<G>,
        _rng: &mut R,
    ) -> Result<(ElGamalClientState, ()), DcError> {
        check_roster_key(key, roster.client(client)?)?;
        Ok((ElGamalClientState { client }, ()))
    }

    fn server_setup<R: RngCore + CryptoRng + ?Sized>(
        roster: &Roster<Self>,
        server: ServerId,
        key: &SigningKey<G>,
        _rng: &mut R,
    ) -> Result<(ElGamalServerState<G>, ()), DcError> {
        check_roster_key(key, roster.server(server)?)?;
        Ok((
            ElGamalServerState {
                server,
                secret: key.secret().clone(),
            },
            (),
        ))
    }

    fn combine_setup(
        roster: &Roster<Self>,
        clients: &[()],
        servers: &[()],
    ) -> Result<(), SetupError> {
        combine_no_setup(roster, clients, servers)
    }

    fn prepare_slot(session: &Session<Self>, slot: SlotRound) -> Result<ElGamalSlot<G>, DcError> {
        let params = Self::params(session, slot)?;
        let keys: Vec<G> = session
            .roster()
            .servers()
            .iter()
            .map(|k| *k.point())
            .collect();
        ElGamalSlot::new(params, &keys).map_err(|e| e.into_dc(slot.slot, slot.len))
    }

    fn cover<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        state: &ElGamalClientState,
        rng: &mut R,
    ) -> Result<ClientCiphertext<G>, DcError> {
        let y = session.roster().pseudonym(slot.slot())?;
        slot.data()
            .cover_create(state.client.0, y.point(), rng)
            .map_err(Self::dc(slot))
    }

    fn owner<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        state: &ElGamalClientState,
        pseudonym: &SigningKey<G>,
        message: &[u8],
        rng: &mut R,
    ) -> Result<ClientCiphertext<G>, DcError> {
        if pseudonym.verifying_key() != session.roster().pseudonym(slot.slot())? {
            return Err(DcError::NotSlotOwner { slot: slot.slot() });
        }
        if message.len() > slot.len() {
            return Err(DcError::MessageTooLong {
                len: message.len(),
                capacity: slot.len(),
            });
        }
        slot.data()
            .owner_create(state.client.0, pseudonym.secret(), message, rng)
            .map_err(Self::dc(slot))
    }

    fn server_ciphertext<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        state: &ElGamalServerState<G>,
        accepted: &[(ClientId, &ClientCiphertext<G>)],
        rng: &mut R,
    ) -> Result<ServerCiphertext<G>, DcError> {
        check_accepted(session.roster(), accepted)?;
        slot.data()
            .server_create(state.server.0, &state.secret, &Self::raw(accepted), rng)
            .map_err(Self::dc(slot))
    }

    fn reveal(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        accepted: &[(ClientId, &ClientCiphertext<G>)],
        servers: &[&ServerCiphertext<G>],
    ) -> Result<Option<Vec<u8>>, DcError> {
        check_accepted(session.roster(), accepted)?;
        let servers = indexed_servers(session.roster(), servers)?;
        let elements = slot
            .data()
            .reveal_elements(&Self::raw(accepted), &servers)
            .map_err(Self::dc(slot))?;
        match decode_message::<G>(&elements) {
            Ok(msg) => Ok(Some(msg)),
            Err(FrameError::Empty) => Ok(None),
            Err(e) => Err(DcError::CorruptReveal(e.to_string())),
        }
    }

    fn client_ciphertext_len(len: usize) -> usize {
        client_ciphertext_len::<G>(framing::elements_needed::<G>(len))
    }

    fn server_ciphertext_len(len: usize) -> usize {
        server_ciphertext_len::<G>(framing::elements_needed::<G>(len))
    }

    fn encode_client_ciphertext(ct: &ClientCiphertext<G>) -> Vec<u8> {
        ct.to_bytes()
    }

    fn decode_client_ciphertext(
        len: usize,
        bytes: &[u8],
    ) -> Result<ClientCiphertext<G>, DcDecodeError> {
        ClientCiphertext::decode(elements_for::<G>(len)?, bytes)
    }

    fn encode_server_ciphertext(ct: &ServerCiphertext<G>) -> Vec<u8> {
        ct.to_bytes()
    }

    fn decode_server_ciphertext(
        len: usize,
        bytes: &[u8],
    ) -> Result<ServerCiphertext<G>, DcDecodeError> {
        DleqCiphertext::decode(elements_for::<G>(len)?, bytes)
    }
}

impl<G: MessageGroup> Verifiable for ElGamal<G> {
    fn verify_client(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        client: ClientId,
        ct: &ClientCiphertext<G>,
    ) -> Result<(), DcError> {
        session.roster().client(client)?;
        let y = session.roster().pseudonym(slot.slot())?;
        slot.data()
            .client_verify(client.0, y.point(), ct)
            .map_err(Self::dc(slot))
    }

    fn verify_clients<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        items: &[(ClientId, &ClientCiphertext<G>)],
        rng: &mut R,
    ) -> Result<(), Vec<ClientId>> {
        let roster = session.roster();
        let Ok(y) = roster.pseudonym(slot.slot()) else {
            return Err(items.iter().map(|(c, _)| *c).collect());
        };
        let (known, unknown): (Vec<_>, Vec<_>) =
            items.iter().partition(|(c, _)| roster.client(*c).is_ok());
        let batch = slot
            .data()
            .client_verify_batch(y.point(), &Self::raw(&known), rng);
        batch_outcome(
            items,
            unknown.iter().map(|(c, _)| *c).collect(),
            known.iter().map(|(c, _)| *c),
            batch,
        )
    }

    fn verify_server(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        server: ServerId,
        accepted: &[(ClientId, &ClientCiphertext<G>)],
        ct: &ServerCiphertext<G>,
    ) -> Result<(), DcError> {
        let key = session.roster().server(server)?;
        check_accepted(session.roster(), accepted)?;
        slot.data()
            .server_verify(server.0, key.point(), &Self::raw(accepted), ct)
            .map_err(Self::dc(slot))
    }
}

#[cfg(test)]
mod tests {
    //! The owner-branch oracle (suite version 1): a slot owner puts a point it does not know
    //! the discrete log of into its `R_k` and reads the servers' secret multiple of it off the
    //! reveal. On version 1 this test's forged ciphertext verified and the reveal gave
    //! `C_att − (Σ z_j)·R'`, recovering the victim's earlier message; now it must be rejected.
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    use super::*;

    type G = Ristretto255;
    type S = <G as Group>::Scalar;

    fn params(round: u64, slot: u32, elements: usize) -> SlotParams {
        SlotParams {
            session: [3; 32],
            round,
            slot,
            elements,
        }
    }

    /// The attacker's owner ciphertext `(R_k = p_k, C_k = c_k)`. It knows the slot's pseudonym
    /// secret `y` but no discrete log of any `p_k`, and runs the owner prover on the statement
    /// with the witnesses it has: `y` and, for the `r_k`, fresh guesses.
    fn forged_owner(
        suite: &ElGamalSlot<G>,
        client: u32,
        y: &SecretScalar<S>,
        p: &[G],
        c: &[G],
        rng: &mut ChaCha20Rng,
    ) -> ClientCiphertext<G> {
        let r = Encoded::batch_new(p);
        let c = Encoded::batch_new(c);
        let key = Encoded::new(G::mul_generator(y.expose()));
        let [cover, owner] = suite.client_branches(&key, &r, &c).unwrap();
        let or = Or::new(vec![&cover as &dyn Statement<G>, &owner]).unwrap();
        let mut t = suite
            .slot
            .context(CLIENT_PURPOSE, &suite.suite, client)
            .transcript();
        let witness: Vec<S> = core::iter::once(*y.expose())
            .chain(p.iter().map(|_| S::random(&mut *rng)))
            .collect();
        let proof = or.prove(&mut t, 1, &witness, rng).unwrap();
        ClientCiphertext { r, c, proof }
    }

    #[test]
    fn owner_branch_is_not_a_dh_oracle() {
        let mut rng = ChaCha20Rng::seed_from_u64(77);
        let l = 2;
        let z: Vec<SecretScalar<S>> = (0..3).map(|_| SecretScalar::random(&mut rng)).collect();
        let keys: Vec<G> = z.iter().map(|s| G::mul_generator(s.expose())).collect();

        // Round 1: honest client 0 owns slot 0 and sends a message; its ciphertext is public.
        let y0 = SecretScalar::random(&mut rng);
        let past = ElGamalSlot::<G>::new(params(1, 0, l), &keys).unwrap();
        let victim = past
            .owner_create(0, &y0, b"meet at the old mill", &mut rng)
            .unwrap();

        // Round 2: the attacker (client 2) owns slot 1 and copies the victim's R' into its R.
        let y1 = SecretScalar::random(&mut rng);
        let y1_pub = G::mul_generator(y1.expose());
        let now = ElGamalSlot::<G>::new(params(2, 1, l), &keys).unwrap();
        let p: Vec<G> = victim.randomness().iter().map(|e| *e.point()).collect();
        let c_att: Vec<G> = (0..l).map(|_| G::random(&mut rng)).collect();
        let evil = forged_owner(&now, 2, &y1, &p, &c_att, &mut rng);
        // It survives the wire (every point is valid) and is rejected by the proof check.
        let evil = ClientCiphertext::from_bytes(now.slot(), 2, &evil.to_bytes()).unwrap();
        assert_eq!(
            now.client_verify(2, &y1_pub, &evil),
            Err(SuiteError::ClientProof { client: 2 })
        );

        // Honest covers and an honest owner (same pseudonym secret) still verify, singly and
        // batched; a batch with the forgery in it names exactly the forger.
        let c0 = now.cover_create(0, &y1_pub, &mut rng).unwrap();
        let c1 = now.cover_create(1, &y1_pub, &mut rng).unwrap();
        let honest = now.owner_create(3, &y1, b"hello", &mut rng).unwrap();
        for (i, ct) in [(0, &c0), (1, &c1), (3, &honest)] {
            assert_eq!(now.client_verify(i, &y1_pub, ct), Ok(()), "client {i}");
        }
        let good = vec![(0, &c0), (1, &c1), (3, &honest)];
        assert_eq!(now.client_verify_batch(&y1_pub, &good, &mut rng), Ok(()));
        let mixed = vec![(0, &c0), (2, &evil), (1, &c1), (3, &honest)];
        assert_eq!(
            now.client_verify_batch(&y1_pub, &mixed, &mut rng),
            Err(SuiteError::ClientProofs { clients: vec![2] })
        );

        // The honest round (the forger excluded) reveals the owner's message.
        let scts: Vec<ServerCiphertext<G>> = z
            .iter()
            .enumerate()
            .map(|(j, zj)| now.server_create(j as u32, zj, &good, &mut rng).unwrap())
            .collect();
        let servers: Vec<(u32, &ServerCiphertext<G>)> = scts
            .iter()
            .enumerate()
            .map(|(j, d)| (j as u32, d))
            .collect();
        assert_eq!(now.reveal(&good, &servers), Ok(b"hello".to_vec()));
    }

    /// The attacker cannot dodge the check by using the cover branch instead: with `R_k = P`
    /// it knows no `r_k` for `R_k = r_k·g ∧ C_k = r_k·Z` either.
    #[test]
    fn cover_branch_with_foreign_r_is_rejected() {
        let mut rng = ChaCha20Rng::seed_from_u64(78);
        let keys = [G::random(&mut rng)];
        let y_pub = G::random(&mut rng);
        let suite = ElGamalSlot::<G>::new(params(2, 1, 2), &keys).unwrap();
        let p: Vec<G> = (0..2).map(|_| G::random(&mut rng)).collect();
        let r = Encoded::batch_new(&p);
        let c = Encoded::batch_new(&p.iter().map(|pk| *pk * S::from_u64(5)).collect::<Vec<_>>());
        let [cover, owner] = suite.client_branches(&Encoded::new(y_pub), &r, &c).unwrap();
        let or = Or::new(vec![&cover as &dyn Statement<G>, &owner]).unwrap();
        let mut t = suite
            .slot
            .context(CLIENT_PURPOSE, &suite.suite, 4)
            .transcript();
        let guesses: Vec<S> = (0..2).map(|_| S::random(&mut rng)).collect();
        let proof = or.prove(&mut t, 0, &guesses, &mut rng).unwrap();
        let forged = ClientCiphertext { r, c, proof };
        assert_eq!(
            suite.client_verify(4, &y_pub, &forged),
            Err(SuiteError::ClientProof { client: 4 })
        );
    }
}
