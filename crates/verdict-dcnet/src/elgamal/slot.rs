//! The direct API of the ElGamal suite for one slot of one round: create, verify, server
//! create and verify, reveal.

use rand_core::{CryptoRng, RngCore};
use verdict_group::framing::{decode_message, encode_message};
use verdict_group::{Group, MessageGroup, Scalar, SecretScalar};
use verdict_nizk::{BatchVerifier, Encoded, LinearRelation, Or, Statement};
use zeroize::{Zeroize, Zeroizing};

use crate::server_dleq;
use crate::verifiable::{
    Culprit, SlotParams, SuiteError, accepted_set_bytes, check_distinct, check_len, sum_elements,
};

use super::ciphertext::{
    CLIENT_PURPOSE, ClientCiphertext, SERVER_PURPOSE, ServerCiphertext, suite_id,
};

/// The ElGamal suite for one slot of one round: the slot parameters and the servers' joint key.
#[derive(Clone, Debug)]
pub struct ElGamalSlot<G: Group> {
    pub(super) slot: SlotParams,
    pub(super) suite: Vec<u8>,
    pub(super) joint_key: Encoded<G>,
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
    pub(super) fn client_branches(
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
        let mut t = self
            .slot
            .context(CLIENT_PURPOSE, &self.suite, client)
            .transcript();
        // The encryption randomness is hedged like a proof nonce: drawn from a fork of the
        // slot's transcript (session, round, slot, sender), the owner's pseudonym secret (a
        // cover has none) and 32 bytes of `rng`, so it never repeats across rounds or slots
        // even under a weak `rng`, and is reproducible from those 32 bytes (spec/ciphersuites.md).
        // Wiped on every return path: the `r_k` are the pads' discrete logs, and for an owner
        // `r_k·Z + M_k` before encoding identifies the message.
        let rs = {
            let mut y_repr = owner.as_ref().map(|(y, _)| y.to_bytes());
            let parts: Vec<&[u8]> = y_repr.iter().map(AsRef::as_ref).collect();
            let mut prng = t.witness_rng(b"encryption-witness", &parts, rng);
            if let Some(r) = y_repr.as_mut() {
                r.as_mut().zeroize();
            }
            prng.draw_scalars::<G::Scalar>("encryption-randomness", l)
        };
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
