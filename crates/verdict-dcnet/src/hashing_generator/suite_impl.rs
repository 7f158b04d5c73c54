//! The hashing-generator suite as a [`Ciphersuite`] and [`Verifiable`] suite.

use std::sync::OnceLock;

use rand_core::{CryptoRng, RngCore};
use verdict_group::{MessageGroup, Scalar, SecretScalar, framing, par};
use verdict_nizk::{
    BatchItem, BatchVerifier, Encoded, Or, Schnorr, SigningKey, Statement, VerifyingKey,
};

use crate::aggregate::Aggregating;
use crate::dh::dh_value;
use crate::error::{DcDecodeError, DcError, SetupError};
use crate::ids::{ClientId, Party, ServerId, SlotRound, SuiteId};
use crate::suite::{Ciphersuite, PreparedSlot, Roster, Session, Verifiable, check_accepted};
use crate::wire::{DleqCiphertext, OrCiphertext};

use super::types::{
    Commitments, GENERATOR_DST, HashingGenerator, HgClientCiphertext, HgClientState,
    HgServerCiphertext, HgServerState, HgSessionPublic, HgSlot, Sc, elements_for, pair_secret,
};

impl<G: MessageGroup> Ciphersuite for HashingGenerator<G> {
    const ID: SuiteId = SuiteId::new("hashing-generator", G::NAME, 2);
    const EAGER_ONLY: bool = false;

    type KeyGroup = G;
    type ClientSetup = Commitments<G>;
    type ServerSetup = Commitments<G>;
    type SessionPublic = HgSessionPublic<G>;
    type ClientState = HgClientState<G>;
    type ServerState = HgServerState<G>;
    type SlotData = HgSlot<G>;
    type ClientCiphertext = HgClientCiphertext<G>;
    type ServerCiphertext = HgServerCiphertext<G>;

    fn client_setup<R: RngCore + CryptoRng + ?Sized>(
        roster: &Roster<Self>,
        client: ClientId,
        key: &SigningKey<G>,
        _rng: &mut R,
    ) -> Result<(HgClientState<G>, Commitments<G>), DcError> {
        if roster.client(client)? != key.verifying_key() {
            return Err(DcError::InvalidParameters("key does not match the roster"));
        }
        // σ_i accumulates in a `SecretScalar`; each DH value and s_ij is wiped as soon as the
        // next one is derived (`dh_value` and `pair_secret` return wiping containers).
        let mut sigma = SecretScalar::new(Sc::<G>::zero());
        let mut ks = Vec::with_capacity(roster.num_servers());
        for (j, z) in roster.servers().iter().enumerate() {
            let dh = dh_value(key.secret(), z.point());
            let s = pair_secret::<G>(roster.session(), &dh, client, ServerId(j as u32));
            sigma = SecretScalar::new(*sigma.expose() + *s.expose());
            ks.push(G::mul_generator(s.expose()));
        }
        let u = Encoded::new(ks.iter().copied().sum::<G>());
        let state = HgClientState { client, sigma, u };
        Ok((
            state,
            Commitments {
                commitments: Encoded::batch_new(&ks),
            },
        ))
    }

    fn server_setup<R: RngCore + CryptoRng + ?Sized>(
        roster: &Roster<Self>,
        server: ServerId,
        key: &SigningKey<G>,
        _rng: &mut R,
    ) -> Result<(HgServerState<G>, Commitments<G>), DcError> {
        if roster.server(server)? != key.verifying_key() {
            return Err(DcError::InvalidParameters("key does not match the roster"));
        }
        // One Diffie–Hellman value and one commitment `K_ij = s_ij·g` per client, each on its
        // own: in parallel with the `parallel` feature (2·N constant-time multiplications, a
        // server's largest set-up cost after the shuffle).
        let clients: Vec<(usize, &VerifyingKey<G>)> = roster.clients().iter().enumerate().collect();
        let pairs = par::map(&clients, |&(i, x)| {
            let dh = dh_value(key.secret(), x.point());
            let s = pair_secret::<G>(roster.session(), &dh, ClientId(i as u32), server);
            let k = G::mul_generator(s.expose());
            (s, k)
        });
        let (secrets, ks): (Vec<_>, Vec<G>) = pairs.into_iter().unzip();
        Ok((
            HgServerState { server, secrets },
            Commitments {
                commitments: Encoded::batch_new(&ks),
            },
        ))
    }

    fn combine_setup(
        roster: &Roster<Self>,
        clients: &[Commitments<G>],
        servers: &[Commitments<G>],
    ) -> Result<HgSessionPublic<G>, SetupError> {
        let (n, m) = (roster.num_clients(), roster.num_servers());
        if clients.len() != n {
            return Err(SetupError::Count {
                expected: n,
                actual: clients.len(),
            });
        }
        if servers.len() != m {
            return Err(SetupError::Count {
                expected: m,
                actual: servers.len(),
            });
        }
        for (i, c) in clients.iter().enumerate() {
            if c.commitments.len() != m {
                return Err(SetupError::Malformed {
                    culprit: Party::Client(ClientId(i as u32)),
                });
            }
        }
        for (j, s) in servers.iter().enumerate() {
            if s.commitments.len() != n {
                return Err(SetupError::Malformed {
                    culprit: Party::Server(ServerId(j as u32)),
                });
            }
        }
        // Per client: its commitments checked against the servers' and summed (N·M additions
        // and comparisons, in parallel with the `parallel` feature); the disputed pairs in
        // client order, then server order.
        let rows: Vec<(usize, &Commitments<G>)> = clients.iter().enumerate().collect();
        let checked = par::map(&rows, |&(i, c)| {
            let mut sum = G::identity();
            let mut disputed = Vec::new();
            for (j, kij) in c.commitments.iter().enumerate() {
                if servers[j].commitments[i].as_bytes() != kij.as_bytes() {
                    disputed.push(ServerId(j as u32));
                }
                sum += *kij.point();
            }
            (sum, disputed)
        });
        let mut pairs = Vec::new();
        let mut u = Vec::with_capacity(n);
        for (i, (sum, disputed)) in checked.into_iter().enumerate() {
            pairs.extend(disputed.into_iter().map(|j| (ClientId(i as u32), j)));
            u.push(sum);
        }
        let k: Vec<G> = clients
            .iter()
            .flat_map(|c| c.commitments.iter().map(|kij| *kij.point()))
            .collect();
        if !pairs.is_empty() {
            return Err(SetupError::CommitmentMismatch { pairs });
        }
        Ok(HgSessionPublic {
            servers: m,
            k,
            u: Encoded::batch_new(&u),
        })
    }

    fn prepare_slot(session: &Session<Self>, slot: SlotRound) -> Result<HgSlot<G>, DcError> {
        let l = elements_for::<G>(slot.len)?;
        let suite = Self::suite_id_bytes();
        let mut msg = Vec::with_capacity(8 + suite.len() + 32 + 20 + 8);
        msg.extend_from_slice(&(suite.len() as u64).to_le_bytes());
        msg.extend_from_slice(&suite);
        msg.extend_from_slice(&session.id().0);
        msg.extend_from_slice(&slot.to_bytes());
        let prefix = msg.len();
        let hashed: Vec<G> = (0..l as u64)
            .map(|k| {
                msg.truncate(prefix);
                msg.extend_from_slice(&k.to_le_bytes());
                G::hash_to_group(GENERATOR_DST, &msg)
            })
            .collect();
        // g_k = 2·H(k): as uniform and as unrelated to G and to each other as H(k), and the
        // doubles' encodings come in one batch (one shared inversion on ristretto255 instead
        // of an inverse square root per generator).
        Ok(HgSlot {
            generators: Encoded::double_each(&hashed),
            negated: OnceLock::new(),
        })
    }

    fn cover<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        state: &HgClientState<G>,
        rng: &mut R,
    ) -> Result<HgClientCiphertext<G>, DcError> {
        Self::make_client(session, slot, state, None, rng)
    }

    fn owner<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        state: &HgClientState<G>,
        pseudonym: &SigningKey<G>,
        message: &[u8],
        rng: &mut R,
    ) -> Result<HgClientCiphertext<G>, DcError> {
        Self::make_client(session, slot, state, Some((pseudonym, message)), rng)
    }

    fn server_ciphertext<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        state: &HgServerState<G>,
        accepted: &[(ClientId, &HgClientCiphertext<G>)],
        rng: &mut R,
    ) -> Result<HgServerCiphertext<G>, DcError> {
        let ids = check_accepted(session.roster(), accepted)?;
        Self::server_ciphertext_for(session, slot, state, &ids, rng)
    }

    fn reveal(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        accepted: &[(ClientId, &HgClientCiphertext<G>)],
        servers: &[&HgServerCiphertext<G>],
    ) -> Result<Option<Vec<u8>>, DcError> {
        check_accepted(session.roster(), accepted)?;
        let sum = Self::aggregate(session, slot, accepted)?;
        Self::reveal_aggregated(session, slot, &[&sum], servers)
    }

    fn client_ciphertext_len(len: usize) -> usize {
        OrCiphertext::<G>::encoded_len(framing::elements_needed::<G>(len))
    }

    fn server_ciphertext_len(len: usize) -> usize {
        DleqCiphertext::<G>::encoded_len(framing::elements_needed::<G>(len))
    }

    fn encode_client_ciphertext(ct: &HgClientCiphertext<G>) -> Vec<u8> {
        ct.to_bytes()
    }

    fn decode_client_ciphertext(
        len: usize,
        bytes: &[u8],
    ) -> Result<HgClientCiphertext<G>, DcDecodeError> {
        OrCiphertext::decode(elements_for::<G>(len)?, bytes)
    }

    fn encode_server_ciphertext(ct: &HgServerCiphertext<G>) -> Vec<u8> {
        ct.to_bytes()
    }

    fn decode_server_ciphertext(
        len: usize,
        bytes: &[u8],
    ) -> Result<HgServerCiphertext<G>, DcDecodeError> {
        DleqCiphertext::decode(elements_for::<G>(len)?, bytes)
    }
}

impl<G: MessageGroup> Verifiable for HashingGenerator<G> {
    fn verify_client(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        client: ClientId,
        ct: &HgClientCiphertext<G>,
    ) -> Result<(), DcError> {
        let u = session
            .public()
            .client_commitment(client)
            .ok_or(DcError::UnknownClient { client })?;
        Self::check_client_len(slot, client, ct)?;
        let pseudonym = session.roster().pseudonym(slot.slot())?;
        let vd = Self::client_statement(u, &slot.data().generators, &ct.elements)?;
        let schnorr = Schnorr::with_generator(pseudonym.encoded().clone());
        let or = Or::new(vec![&vd as &dyn Statement<G>, &schnorr])
            .map_err(|_| DcError::InvalidParameters("OR statement"))?;
        let mut t = Self::client_transcript(session, slot.slot_round(), client);
        or.verify(&mut t, &ct.proof)
            .map_err(|_| DcError::InvalidClientProof { client })
    }

    fn verify_clients<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        items: &[(ClientId, &HgClientCiphertext<G>)],
        rng: &mut R,
    ) -> Result<(), Vec<ClientId>> {
        let mut bad = Vec::new();
        let Ok(pseudonym) = session.roster().pseudonym(slot.slot()) else {
            return Err(items.iter().map(|(c, _)| *c).collect());
        };
        let schnorr = Schnorr::with_generator(pseudonym.encoded().clone());
        let gens = &slot.data().generators;
        // Each proof's equations (its statement bound, its transcript hashed) depend on that
        // proof alone: computed in parallel with the `parallel` feature, then added in order,
        // so the batch (and the weights it draws) is the serial one.
        let equations = par::map(items, |(client, ct)| {
            let u = session.public().client_commitment(*client)?;
            Self::check_client_len(slot, *client, ct).ok()?;
            let vd = Self::client_statement(u, gens, &ct.elements).ok()?;
            let or = Or::new(vec![&vd as &dyn Statement<G>, &schnorr]).ok()?;
            let t = Self::client_transcript(session, slot.slot_round(), *client);
            Some(BatchItem::or(&or, t, &ct.proof))
        });
        let mut batch = BatchVerifier::with_capacity(items.len());
        let mut index = Vec::with_capacity(items.len());
        for (pos, item) in equations.into_iter().enumerate() {
            match item {
                Some(item) => {
                    batch.add_item(item);
                    index.push(pos);
                }
                None => bad.push(pos),
            }
        }
        if let Err(e) = batch.verify(rng) {
            bad.extend(e.invalid.iter().filter_map(|&b| index.get(b).copied()));
        }
        if bad.is_empty() {
            return Ok(());
        }
        bad.sort_unstable();
        Err(bad.into_iter().map(|pos| items[pos].0).collect())
    }

    fn verify_server(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        server: ServerId,
        accepted: &[(ClientId, &HgClientCiphertext<G>)],
        ct: &HgServerCiphertext<G>,
    ) -> Result<(), DcError> {
        let ids = check_accepted(session.roster(), accepted)?;
        Self::verify_server_for(session, slot, server, &ids, ct)
    }
}
