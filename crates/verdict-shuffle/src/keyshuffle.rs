//! Verdict's pseudonym-key shuffle (session set-up step 3), sans-IO.
//!
//! 1. **Submission.** Client `c` makes a fresh pseudonym key pair `(y, Y = y·g)` and sends
//!    `(X, Z) = (r·g, r·h + Y)` under the servers' joint key `h = Σ h_j`, with a proof of
//!    knowledge `PoK{r, y : X = r·g ∧ Z = r·h + y·g}` bound to the session and to `c`. Nobody
//!    can resubmit (or re-randomize) another client's ciphertext: they know neither `r` nor `y`.
//! 2. **Shuffle.** Servers `0..M` in turn re-randomize and permute the current list and prove
//!    it with Neff's ElGamal shuffle ([`crate::shuffle`](mod@crate::shuffle)), bound to the session and to the
//!    server's index.
//! 3. **Decryption.** Each server `j` publishes `D_{ij} = s_j·X_i` for the final list with one
//!    vector DLEQ proof `PoK{s_j : h_j = s_j·g ∧ ∀i D_{ij} = s_j·X_i}` against its own key.
//! 4. **Slots.** `Y_i = Z_i − Σ_j D_{ij}`; sorted by encoding, slot `s` belongs to `Y_s`.
//!
//! Every participant (client, server or observer) runs the same [`KeyShuffle`] state machine
//! over the same messages and verifies every step; a step that fails names its sender.
//! [`KeyShuffle`] never does I/O and never reads the clock: messages in, messages out.

use rand_core::{CryptoRng, RngCore};
use verdict_group::codec::Reader;
use verdict_group::{Group, SecretScalar};
use verdict_nizk::{Context, Encoded, LinearRelation, Proof, SigningKey, Statement, VectorDleq};
use zeroize::Zeroizing;

use crate::elgamal::{Ciphertext, CiphertextList, KeyPair, joint_key};
use crate::error::{KeyShuffleError, ShuffleDecodeError};
use crate::shuffle::{self, ShuffleProof, ShuffleStatement};
use crate::{ProofContext, VERSION};

const TAG_SUBMISSION: &[u8; 4] = b"vsS1";
const TAG_SHUFFLE: &[u8; 4] = b"vsH1";
const TAG_DECRYPTION: &[u8; 4] = b"vsD1";
const PURPOSE_SUBMISSION: &[u8] = b"verdict-shuffle/key-submission";
const PURPOSE_DECRYPTION: &[u8] = b"verdict-shuffle/decryption-share";

/// The public parameters of one pseudonym-key shuffle.
#[derive(Debug, Clone)]
pub struct KeyShuffleParams<G: Group> {
    session: [u8; 32],
    server_keys: Vec<G>,
    joint: G,
    num_clients: usize,
}

impl<G: Group> KeyShuffleParams<G> {
    /// Parameters for `session`, the servers' public keys in roster order (each registered with
    /// a proof of knowledge of its secret, which the roster checks), and the roster's number of
    /// clients.
    pub fn new(
        session: [u8; 32],
        server_keys: Vec<G>,
        num_clients: usize,
    ) -> Result<Self, KeyShuffleError> {
        if server_keys.is_empty() {
            return Err(KeyShuffleError::Params("no servers"));
        }
        if num_clients < 2 {
            return Err(KeyShuffleError::Params("fewer than 2 clients"));
        }
        if server_keys.iter().any(Group::is_identity) {
            return Err(KeyShuffleError::Params("identity server key"));
        }
        if u32::try_from(server_keys.len()).is_err() || u32::try_from(num_clients).is_err() {
            return Err(KeyShuffleError::Params("too many participants"));
        }
        let joint = joint_key(&server_keys);
        if joint.is_identity() {
            return Err(KeyShuffleError::Params("joint key is the identity"));
        }
        Ok(Self {
            session,
            server_keys,
            joint,
            num_clients,
        })
    }
    /// The joint encryption key `h = Σ h_j`.
    pub fn joint_key(&self) -> G {
        self.joint
    }
    /// The number of servers `M`.
    pub fn num_servers(&self) -> usize {
        self.server_keys.len()
    }
    /// The session id.
    pub fn session(&self) -> &[u8; 32] {
        &self.session
    }

    fn submission_relation(&self, ct: &Ciphertext<G>) -> Result<LinearRelation<G>, &'static str> {
        let g = Encoded::<G>::generator();
        let mut rel = LinearRelation::<G>::new(2);
        rel.add_equation(ct.x, [(0, g.clone())])
            .map_err(|_| "relation")?;
        rel.add_equation(ct.y, [(0, Encoded::new(self.joint)), (1, g)])
            .map_err(|_| "relation")?;
        Ok(rel)
    }

    fn submission_context(&self, client: u32) -> Context {
        Context::new(PURPOSE_SUBMISSION, self.session)
            .with_sender(client)
            .with_field(b"version", &VERSION.to_le_bytes())
            .with_field(b"group", G::NAME.as_bytes())
    }

    fn decryption_context(&self, server: u32) -> Context {
        Context::new(PURPOSE_DECRYPTION, self.session)
            .with_sender(server)
            .with_field(b"version", &VERSION.to_le_bytes())
            .with_field(b"group", G::NAME.as_bytes())
    }
}

/// A client's submission: its encrypted pseudonym key and proof of knowledge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submission<G: Group> {
    ciphertext: Ciphertext<G>,
    proof: Proof<G>,
}

impl<G: Group> Submission<G> {
    /// The encrypted pseudonym key.
    pub fn ciphertext(&self) -> &Ciphertext<G> {
        &self.ciphertext
    }
    /// Wire format: `"vsS1" ‖ X ‖ Z ‖ proof` (proof: 2 commitments, 2 responses).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = TAG_SUBMISSION.to_vec();
        out.extend_from_slice(self.ciphertext.x.to_bytes().as_ref());
        out.extend_from_slice(self.ciphertext.y.to_bytes().as_ref());
        self.proof.write_to(&mut out);
        out
    }
    /// Decodes and validates a submission (points, scalars, exact length).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ShuffleDecodeError> {
        let mut r = Reader::new(bytes);
        r.tag(TAG_SUBMISSION)?;
        let x = r.point::<G>("X")?;
        let y = r.point::<G>("Z")?;
        let offset = r.offset();
        let rest = r.rest();
        let shape = verdict_nizk::Shape {
            commitments_g: 2,
            commitments_h: 0,
            responses: 2,
        };
        let proof = Proof::from_bytes(rest, shape).map_err(|_| ShuffleDecodeError::Element {
            what: "submission proof",
            offset,
            source: verdict_group::DecodeError::NonCanonical,
        })?;
        Ok(Self {
            ciphertext: Ciphertext { x, y },
            proof,
        })
    }
}

/// Client side: a fresh pseudonym key and the submission carrying it.
pub fn client_submit<G: Group, R: RngCore + CryptoRng + ?Sized>(
    params: &KeyShuffleParams<G>,
    client: u32,
    rng: &mut R,
) -> Result<(SigningKey<G>, Submission<G>), KeyShuffleError> {
    let key = SigningKey::<G>::generate(rng);
    let sub = submit_pseudonym(params, client, key.secret(), rng)?;
    Ok((key, sub))
}

/// The submission of client `client` carrying the pseudonym key `y·g` for a given secret `y`.
///
/// [`client_submit`] is the normal entry point (a fresh key). This one exists because nothing
/// in the shuffle can stop a client from choosing its secret: `y = 0` (the identity as
/// pseudonym key) or a secret shared with a colluding client both give valid submissions. The
/// shuffle's output therefore drops such keys ([`KeyShuffle::slots`]); this function lets tests
/// and deterministic vectors produce them.
pub fn submit_pseudonym<G: Group, R: RngCore + CryptoRng + ?Sized>(
    params: &KeyShuffleParams<G>,
    client: u32,
    y: &SecretScalar<G::Scalar>,
    rng: &mut R,
) -> Result<Submission<G>, KeyShuffleError> {
    let point = G::mul_generator(y.expose());
    let (ciphertext, r) = Ciphertext::encrypt(&params.joint, &point, rng);
    let invalid = |reason| KeyShuffleError::InvalidSubmission {
        client: client as usize,
        reason,
    };
    let rel = params.submission_relation(&ciphertext).map_err(invalid)?;
    let mut t = params.submission_context(client).transcript();
    // The witness copies are wiped when the proof is made (the originals are `SecretScalar`s).
    let witness = Zeroizing::new([*r.expose(), *y.expose()]);
    let proof = rel
        .prove(&mut t, &*witness, rng)
        .map_err(|_| invalid("cannot prove"))?;
    Ok(Submission { ciphertext, proof })
}

/// Verifies client `client`'s submission.
pub fn verify_submission<G: Group>(
    params: &KeyShuffleParams<G>,
    client: u32,
    sub: &Submission<G>,
) -> Result<(), KeyShuffleError> {
    let invalid = |reason| KeyShuffleError::InvalidSubmission {
        client: client as usize,
        reason,
    };
    if client as usize >= params.num_clients {
        return Err(invalid("client index outside the roster"));
    }
    let rel = params
        .submission_relation(&sub.ciphertext)
        .map_err(invalid)?;
    let mut t = params.submission_context(client).transcript();
    rel.verify(&mut t, &sub.proof)
        .map_err(|_| invalid("proof of knowledge rejected"))
}

/// A server's shuffle step: its output list and the proof.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShuffleStep<G: Group> {
    /// The re-randomized, permuted list.
    pub outputs: CiphertextList<G>,
    /// Neff's proof, bound to the session and the server's index.
    pub proof: ShuffleProof<G>,
}

impl<G: Group> ShuffleStep<G> {
    /// Wire format: `"vsH1" ‖ u32 n ‖ outputs[n] ‖ proof(n)`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let n = self.outputs.len();
        let mut out = TAG_SHUFFLE.to_vec();
        out.extend_from_slice(&(n as u32).to_le_bytes());
        out.extend_from_slice(self.outputs.as_bytes());
        self.proof.write_to(&mut out);
        out
    }
    /// Decodes a step for exactly `n` ciphertexts.
    pub fn from_bytes(bytes: &[u8], n: usize) -> Result<Self, ShuffleDecodeError> {
        let mut r = Reader::new(bytes);
        r.tag(TAG_SHUFFLE)?;
        let len = r.u32()?;
        if len as usize != n {
            return Err(ShuffleDecodeError::BadLength {
                len: len.into(),
                max: n as u64,
            });
        }
        let outputs = CiphertextList::from_bytes(r.raw(2 * n * G::ENCODED_LEN)?)?;
        let proof = ShuffleProof::read_from(&mut r, n)?;
        r.finish()?;
        Ok(Self { outputs, proof })
    }
}

/// Server side: shuffle `inputs` under the joint key and prove it as server `server`.
pub fn server_shuffle<G: Group, R: RngCore + CryptoRng + ?Sized>(
    params: &KeyShuffleParams<G>,
    server: u32,
    inputs: &CiphertextList<G>,
    rng: &mut R,
) -> Result<ShuffleStep<G>, KeyShuffleError> {
    let (outputs, witness) = shuffle::shuffle(&params.joint, inputs, rng);
    let st = ShuffleStatement {
        h: params.joint,
        inputs,
        outputs: &outputs,
    };
    let ctx = ProofContext::new(params.session, server);
    let proof = shuffle::prove(&ctx, &st, &witness, rng).map_err(|source| {
        KeyShuffleError::InvalidShuffle {
            server: server as usize,
            source,
        }
    })?;
    Ok(ShuffleStep { outputs, proof })
}

/// Verifies server `server`'s shuffle step of `inputs` (batched verifier).
pub fn verify_shuffle_step<G: Group>(
    params: &KeyShuffleParams<G>,
    server: u32,
    inputs: &CiphertextList<G>,
    step: &ShuffleStep<G>,
) -> Result<(), KeyShuffleError> {
    let st = ShuffleStatement {
        h: params.joint,
        inputs,
        outputs: &step.outputs,
    };
    let ctx = ProofContext::new(params.session, server);
    shuffle::verify(&ctx, &st, &step.proof).map_err(|source| KeyShuffleError::InvalidShuffle {
        server: server as usize,
        source,
    })
}

/// A server's decryption shares `D_i = s_j·X_i` for the final list, with one vector DLEQ proof.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecryptionStep<G: Group> {
    shares: Vec<Encoded<G>>,
    proof: Proof<G>,
}

impl<G: Group> DecryptionStep<G> {
    /// The shares `D_i`.
    pub fn shares(&self) -> impl Iterator<Item = &G> {
        self.shares.iter().map(Encoded::point)
    }
    /// Wire format: `"vsD1" ‖ u32 n ‖ D[n] ‖ proof` (proof: 2 commitments, 1 response).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = TAG_DECRYPTION.to_vec();
        out.extend_from_slice(&(self.shares.len() as u32).to_le_bytes());
        for d in &self.shares {
            out.extend_from_slice(d.as_bytes());
        }
        self.proof.write_to(&mut out);
        out
    }
    /// Decodes a step for exactly `n` ciphertexts.
    pub fn from_bytes(bytes: &[u8], n: usize) -> Result<Self, ShuffleDecodeError> {
        let mut r = Reader::new(bytes);
        r.tag(TAG_DECRYPTION)?;
        let len = r.u32()?;
        if len as usize != n {
            return Err(ShuffleDecodeError::BadLength {
                len: len.into(),
                max: n as u64,
            });
        }
        let mut shares = Vec::with_capacity(n);
        for _ in 0..n {
            let offset = r.offset();
            let d = Encoded::from_bytes(r.raw(G::ENCODED_LEN)?).map_err(|source| {
                ShuffleDecodeError::Element {
                    what: "decryption share",
                    offset,
                    source,
                }
            })?;
            shares.push(d);
        }
        let offset = r.offset();
        let shape = verdict_nizk::Shape {
            commitments_g: 1,
            commitments_h: 1,
            responses: 1,
        };
        let proof = Proof::from_bytes(r.rest(), shape).map_err(|_| ShuffleDecodeError::Element {
            what: "decryption proof",
            offset,
            source: verdict_group::DecodeError::NonCanonical,
        })?;
        Ok(Self { shares, proof })
    }
}

fn dleq_statement<G: Group>(
    pk: &G,
    xs: &[Encoded<G>],
    shares: &[Encoded<G>],
) -> Result<VectorDleq<G>, &'static str> {
    VectorDleq::new(Encoded::generator(), *pk, xs.to_vec(), shares.to_vec())
        .map_err(|_| "share count does not match the list")
}

/// Server side: decryption shares for `list` with a proof against the server's own key.
pub fn server_decrypt<G: Group, R: RngCore + CryptoRng + ?Sized>(
    params: &KeyShuffleParams<G>,
    server: u32,
    key: &KeyPair<G>,
    list: &CiphertextList<G>,
    rng: &mut R,
) -> Result<DecryptionStep<G>, KeyShuffleError> {
    let invalid = |reason| KeyShuffleError::InvalidDecryptionShare {
        server: server as usize,
        reason,
    };
    match params.server_keys.get(server as usize) {
        Some(pk) if *pk == key.public() => {}
        _ => return Err(invalid("key pair does not match the roster")),
    }
    let s = key.secret().expose();
    let shares: Vec<G> = list.iter().map(|c| c.x * s).collect();
    let shares = Encoded::batch_new(&shares);
    let xs = x_components(list);
    let st = dleq_statement(&key.public(), &xs, &shares).map_err(invalid)?;
    let mut t = params.decryption_context(server).transcript();
    let witness = Zeroizing::new([*s]);
    let proof = st
        .prove(&mut t, &*witness, rng)
        .map_err(|_| invalid("cannot prove"))?;
    Ok(DecryptionStep { shares, proof })
}

fn x_components<G: Group>(list: &CiphertextList<G>) -> Vec<Encoded<G>> {
    // The list already holds these encodings, but `Encoded` can only be built by encoding or
    // decoding; re-encoding costs one point encoding per element (see the notes).
    let xs: Vec<G> = list.iter().map(|c| c.x).collect();
    Encoded::batch_new(&xs)
}

/// Verifies server `server`'s decryption shares for `list`.
pub fn verify_decryption_step<G: Group>(
    params: &KeyShuffleParams<G>,
    server: u32,
    list: &CiphertextList<G>,
    step: &DecryptionStep<G>,
) -> Result<(), KeyShuffleError> {
    verify_decryption_with(params, server, &x_components(list), step)
}

fn verify_decryption_with<G: Group>(
    params: &KeyShuffleParams<G>,
    server: u32,
    xs: &[Encoded<G>],
    step: &DecryptionStep<G>,
) -> Result<(), KeyShuffleError> {
    let invalid = |reason| KeyShuffleError::InvalidDecryptionShare {
        server: server as usize,
        reason,
    };
    let pk = params
        .server_keys
        .get(server as usize)
        .ok_or(invalid("server index outside the roster"))?;
    let st = dleq_statement(pk, xs, &step.shares).map_err(invalid)?;
    let mut t = params.decryption_context(server).transcript();
    st.verify(&mut t, &step.proof)
        .map_err(|_| invalid("DLEQ proof rejected"))
}

/// Strips all servers' shares from `list` and sorts the keys: slot `s` is `keys[s]`.
///
/// Keys that cannot own a slot are dropped: the identity (a client may encrypt it with a valid
/// proof, witness `y = 0`) and every copy of a key that appears more than once (two colluding
/// clients may encrypt the same key). Both are the submitting clients' doing and cost only their
/// own slots; aborting instead would let one client stop set-up for everyone, and nothing in the
/// list says which server to blame (none is at fault). Dropping is deterministic, so every
/// participant derives the same slots.
fn open_slots<G: Group>(list: &CiphertextList<G>, steps: &[DecryptionStep<G>]) -> Vec<G> {
    let points: Vec<G> = list
        .iter()
        .enumerate()
        .map(|(i, c)| c.y - steps.iter().map(|s| *s.shares[i].point()).sum::<G>())
        .collect();
    let mut keys: Vec<(G::Repr, G)> = G::batch_to_bytes(&points)
        .into_iter()
        .zip(points)
        .filter(|(_, p)| !p.is_identity())
        .collect();
    keys.sort_by(|a, b| a.0.as_ref().cmp(b.0.as_ref()));
    let unique = |i: usize| {
        let same = |j: Option<&(G::Repr, G)>| j.is_some_and(|k| k.0.as_ref() == keys[i].0.as_ref());
        !same(i.checked_sub(1).and_then(|j| keys.get(j))) && !same(keys.get(i + 1))
    };
    (0..keys.len())
        .filter(|&i| unique(i))
        .map(|i| keys[i].1)
        .collect()
}

/// Where a [`KeyShuffle`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Phase {
    /// Collecting client submissions.
    Submissions,
    /// Waiting for server `server`'s shuffle step.
    Shuffle {
        /// The next server to shuffle.
        server: usize,
    },
    /// Collecting decryption shares.
    Decryption,
    /// The slots are assigned.
    Done,
}

/// The pseudonym-key shuffle as a state machine: feed it every message, in order; it verifies
/// each and tells who failed. Servers also use it to produce their own messages.
#[derive(Debug, Clone)]
pub struct KeyShuffle<G: Group> {
    params: KeyShuffleParams<G>,
    submissions: Vec<Option<Ciphertext<G>>>,
    clients: Vec<u32>,
    lists: Vec<CiphertextList<G>>,
    x_final: Vec<Encoded<G>>,
    decryptions: Vec<Option<DecryptionStep<G>>>,
    slots: Option<Vec<G>>,
    phase: Phase,
}

impl<G: Group> KeyShuffle<G> {
    /// A fresh shuffle for `params`.
    pub fn new(params: KeyShuffleParams<G>) -> Self {
        let m = params.num_servers();
        Self {
            submissions: vec![None; params.num_clients],
            decryptions: vec![None; m],
            params,
            clients: Vec::new(),
            lists: Vec::new(),
            x_final: Vec::new(),
            slots: None,
            phase: Phase::Submissions,
        }
    }

    /// The current phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The parameters.
    pub fn params(&self) -> &KeyShuffleParams<G> {
        &self.params
    }

    /// Accepts client `client`'s submission bytes (during [`Phase::Submissions`]).
    pub fn receive_submission(&mut self, client: u32, bytes: &[u8]) -> Result<(), KeyShuffleError> {
        if self.phase != Phase::Submissions {
            return Err(KeyShuffleError::OutOfOrder(
                "submission after the window closed",
            ));
        }
        let sub = Submission::from_bytes(bytes).map_err(|source| KeyShuffleError::Malformed {
            party: format!("client {client}"),
            source,
        })?;
        verify_submission(&self.params, client, &sub)?;
        let dup = self
            .submissions
            .iter()
            .flatten()
            .any(|c| *c == sub.ciphertext);
        match self.submissions.get_mut(client as usize) {
            Some(slot @ None) if !dup => {
                *slot = Some(sub.ciphertext);
                Ok(())
            }
            _ => Err(KeyShuffleError::DuplicateSubmission {
                client: client as usize,
            }),
        }
    }

    /// Closes the submission window: the clients that submitted (in roster order) take part.
    pub fn close_submissions(&mut self) -> Result<(), KeyShuffleError> {
        if self.phase != Phase::Submissions {
            return Err(KeyShuffleError::OutOfOrder("submissions already closed"));
        }
        let mut cts = Vec::new();
        for (i, s) in self.submissions.iter().enumerate() {
            if let Some(c) = s {
                self.clients.push(i as u32);
                cts.push(*c);
            }
        }
        if cts.len() < 2 {
            return Err(KeyShuffleError::Params("fewer than 2 clients submitted"));
        }
        self.lists.push(CiphertextList::new(cts));
        self.phase = Phase::Shuffle { server: 0 };
        Ok(())
    }

    /// The clients whose submissions entered the shuffle (after closing).
    pub fn participants(&self) -> &[u32] {
        &self.clients
    }

    /// The current list: the input of the next shuffle, or the final list once all shuffled.
    pub fn current_list(&self) -> Option<&CiphertextList<G>> {
        self.lists.last()
    }

    /// Server side: this server's shuffle step, if it is its turn. Feed the returned bytes to
    /// [`KeyShuffle::receive_shuffle`] like everybody else.
    pub fn make_shuffle<R: RngCore + CryptoRng + ?Sized>(
        &self,
        server: u32,
        rng: &mut R,
    ) -> Result<Vec<u8>, KeyShuffleError> {
        let (Phase::Shuffle { server: next }, Some(list)) = (self.phase, self.lists.last()) else {
            return Err(KeyShuffleError::OutOfOrder("not shuffling"));
        };
        if next != server as usize {
            return Err(KeyShuffleError::OutOfOrder("not this server's turn"));
        }
        Ok(server_shuffle(&self.params, server, list, rng)?.to_bytes())
    }

    /// Accepts server `server`'s shuffle step (it must be that server's turn).
    pub fn receive_shuffle(&mut self, server: u32, bytes: &[u8]) -> Result<(), KeyShuffleError> {
        let (Phase::Shuffle { server: next }, Some(list)) = (self.phase, self.lists.last()) else {
            return Err(KeyShuffleError::OutOfOrder("not shuffling"));
        };
        if next != server as usize {
            return Err(KeyShuffleError::OutOfOrder("not this server's turn"));
        }
        let step = ShuffleStep::from_bytes(bytes, list.len()).map_err(|source| {
            KeyShuffleError::Malformed {
                party: format!("server {server}"),
                source,
            }
        })?;
        verify_shuffle_step(&self.params, server, list, &step)?;
        self.lists.push(step.outputs);
        if next + 1 == self.params.num_servers() {
            self.phase = Phase::Decryption;
            if let Some(last) = self.lists.last() {
                self.x_final = x_components(last);
            }
        } else {
            self.phase = Phase::Shuffle { server: next + 1 };
        }
        Ok(())
    }

    /// Server side: this server's decryption shares of the final list.
    pub fn make_decryption<R: RngCore + CryptoRng + ?Sized>(
        &self,
        server: u32,
        key: &KeyPair<G>,
        rng: &mut R,
    ) -> Result<Vec<u8>, KeyShuffleError> {
        let (Phase::Decryption, Some(list)) = (self.phase, self.lists.last()) else {
            return Err(KeyShuffleError::OutOfOrder("not decrypting"));
        };
        Ok(server_decrypt(&self.params, server, key, list, rng)?.to_bytes())
    }

    /// Accepts server `server`'s decryption shares (any order). After the last one the slots
    /// are assigned.
    pub fn receive_decryption(&mut self, server: u32, bytes: &[u8]) -> Result<(), KeyShuffleError> {
        let (Phase::Decryption, Some(list)) = (self.phase, self.lists.last()) else {
            return Err(KeyShuffleError::OutOfOrder("not decrypting"));
        };
        let step = DecryptionStep::from_bytes(bytes, list.len()).map_err(|source| {
            KeyShuffleError::Malformed {
                party: format!("server {server}"),
                source,
            }
        })?;
        verify_decryption_with(&self.params, server, &self.x_final, &step)?;
        match self.decryptions.get_mut(server as usize) {
            Some(slot @ None) => *slot = Some(step),
            _ => return Err(KeyShuffleError::OutOfOrder("duplicate decryption shares")),
        }
        if self.decryptions.iter().all(Option::is_some) {
            let steps: Vec<DecryptionStep<G>> =
                self.decryptions.iter().flatten().cloned().collect();
            self.slots = Some(open_slots(list, &steps));
            self.phase = Phase::Done;
        }
        Ok(())
    }

    /// The pseudonym keys in slot order, once [`Phase::Done`]: every submitted key except the
    /// identity and keys submitted more than once. Nothing stops a client from submitting those
    /// (with valid proofs); they cost only the submitters' own slots, so there may be fewer
    /// slots than participants.
    pub fn slots(&self) -> Option<&[G]> {
        self.slots.as_deref()
    }

    /// The slot of pseudonym key `key`, once [`Phase::Done`].
    pub fn slot_of(&self, key: &G) -> Option<usize> {
        self.slots.as_ref()?.iter().position(|k| k == key)
    }
}
