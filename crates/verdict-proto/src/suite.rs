//! The bridge between the protocol and `verdict-dcnet`: which suites a session can run, and
//! per-slot dispatch between the session's verifiable suite and (in hybrid mode) the XOR suite.

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::elgamal::ElGamal;
use verdict_dcnet::pairing::{ChunkWidth, Pairing};
use verdict_dcnet::xor::{XorCiphertext, XorClientState, XorServerState};
use verdict_dcnet::{
    Aggregating, Ciphersuite, ClientId, DcDecodeError, DcError, DhReveal, HashingGenerator, Liar,
    PreparedSlot, Roster, ServerId, Session, SlotRound, Verifiable, Xor,
};
use verdict_group::bls12_381::G2;
use verdict_group::{Group, MessageGroup};
use verdict_nizk::SigningKey;

use crate::slot::{OpenSlot, SlotKind};

/// A verifiable suite the protocol can run: its long-term and pseudonym keys are Schnorr keys
/// in one group [`ProtoSuite::G`], which is also the group of the pseudonym shuffle, of message
/// signatures and (in hybrid mode) of the XOR suite's Diffie–Hellman keys.
pub trait ProtoSuite: Verifiable<KeyGroup = Self::G> {
    /// The key group.
    type G: Group;

    /// Whether servers may combine each other's per-server aggregates of client ciphertexts
    /// instead of decoding every ciphertext (see `verdict_dcnet::aggregate`): `true` for the
    /// lazy-safe suites, `false` for eager-only ElGamal, whose servers must decode and verify
    /// every ciphertext they help decrypt.
    const AGGREGATES: bool;

    /// A per-server sum of client ciphertexts of one slot (`()` where [`Self::AGGREGATES`] is
    /// `false`).
    type Aggregate: Clone + core::fmt::Debug + PartialEq + Send + Sync;

    /// See `verdict_dcnet::Aggregating::aggregate`.
    fn aggregate(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        items: &[(ClientId, &Self::ClientCiphertext)],
    ) -> Result<Self::Aggregate, DcError>;

    /// See `verdict_dcnet::Aggregating::server_ciphertext_for`.
    fn server_ciphertext_for<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        state: &Self::ServerState,
        accepted: &[ClientId],
        rng: &mut R,
    ) -> Result<Self::ServerCiphertext, DcError>;

    /// See `verdict_dcnet::Aggregating::verify_server_for`.
    fn verify_server_for(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        server: ServerId,
        accepted: &[ClientId],
        ct: &Self::ServerCiphertext,
    ) -> Result<(), DcError>;

    /// See `verdict_dcnet::Aggregating::verify_server_slots_for`.
    fn verify_server_slots_for<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        server: ServerId,
        accepted: &[ClientId],
        items: &[(&PreparedSlot<Self>, &Self::ServerCiphertext)],
        rng: &mut R,
    ) -> Result<(), Vec<usize>>;

    /// See `verdict_dcnet::Aggregating::reveal_aggregated`.
    fn reveal_aggregated(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        aggregates: &[&Self::Aggregate],
        servers: &[&Self::ServerCiphertext],
    ) -> Result<Option<Vec<u8>>, DcError>;

    /// See `verdict_dcnet::Aggregating::encode_aggregate`.
    fn encode_aggregate(aggregate: &Self::Aggregate) -> Vec<u8>;

    /// See `verdict_dcnet::Aggregating::decode_aggregate`.
    fn decode_aggregate(len: usize, bytes: &[u8]) -> Result<Self::Aggregate, DcDecodeError>;

    /// Set-up dispute, step 1: server `server` provably reveals its Diffie–Hellman value with
    /// `client` (DLEQ proof), which settles whether the pair's published commitments are right.
    /// `None` for suites whose set-up has no pairwise commitments.
    fn reveal_for_dispute<R: RngCore + CryptoRng + ?Sized>(
        roster: &Roster<Self>,
        server: ServerId,
        key: &SigningKey<Self::G>,
        client: ClientId,
        rng: &mut R,
    ) -> Option<DhReveal<Self::G>> {
        let _ = (roster, server, key, client, rng);
        None
    }

    /// Set-up dispute, step 2: who lied, given the pair's published set-up messages and the
    /// reveal. `None` if the suite has no disputes or the reveal settles nothing.
    fn resolve_dispute(
        roster: &Roster<Self>,
        client_setup: &Self::ClientSetup,
        server_setup: &Self::ServerSetup,
        reveal: &DhReveal<Self::G>,
    ) -> Option<Liar> {
        let _ = (roster, client_setup, server_setup, reveal);
        None
    }
}

/// The aggregation items of [`ProtoSuite`] for a suite that implements [`Aggregating`].
macro_rules! aggregating {
    () => {
        const AGGREGATES: bool = true;
        type Aggregate = <Self as Aggregating>::Aggregate;

        fn aggregate(
            session: &Session<Self>,
            slot: &PreparedSlot<Self>,
            items: &[(ClientId, &Self::ClientCiphertext)],
        ) -> Result<Self::Aggregate, DcError> {
            <Self as Aggregating>::aggregate(session, slot, items)
        }

        fn server_ciphertext_for<R: RngCore + CryptoRng + ?Sized>(
            session: &Session<Self>,
            slot: &PreparedSlot<Self>,
            state: &Self::ServerState,
            accepted: &[ClientId],
            rng: &mut R,
        ) -> Result<Self::ServerCiphertext, DcError> {
            <Self as Aggregating>::server_ciphertext_for(session, slot, state, accepted, rng)
        }

        fn verify_server_for(
            session: &Session<Self>,
            slot: &PreparedSlot<Self>,
            server: ServerId,
            accepted: &[ClientId],
            ct: &Self::ServerCiphertext,
        ) -> Result<(), DcError> {
            <Self as Aggregating>::verify_server_for(session, slot, server, accepted, ct)
        }

        fn verify_server_slots_for<R: RngCore + CryptoRng + ?Sized>(
            session: &Session<Self>,
            server: ServerId,
            accepted: &[ClientId],
            items: &[(&PreparedSlot<Self>, &Self::ServerCiphertext)],
            rng: &mut R,
        ) -> Result<(), Vec<usize>> {
            <Self as Aggregating>::verify_server_slots_for(session, server, accepted, items, rng)
        }

        fn reveal_aggregated(
            session: &Session<Self>,
            slot: &PreparedSlot<Self>,
            aggregates: &[&Self::Aggregate],
            servers: &[&Self::ServerCiphertext],
        ) -> Result<Option<Vec<u8>>, DcError> {
            <Self as Aggregating>::reveal_aggregated(session, slot, aggregates, servers)
        }

        fn encode_aggregate(aggregate: &Self::Aggregate) -> Vec<u8> {
            <Self as Aggregating>::encode_aggregate(aggregate)
        }

        fn decode_aggregate(len: usize, bytes: &[u8]) -> Result<Self::Aggregate, DcDecodeError> {
            <Self as Aggregating>::decode_aggregate(len, bytes)
        }
    };
}

impl<G: MessageGroup> ProtoSuite for HashingGenerator<G> {
    type G = G;
    aggregating!();

    fn reveal_for_dispute<R: RngCore + CryptoRng + ?Sized>(
        roster: &Roster<Self>,
        server: ServerId,
        key: &SigningKey<G>,
        client: ClientId,
        rng: &mut R,
    ) -> Option<DhReveal<G>> {
        Self::dispute_server(roster, server, key, client, rng).ok()
    }

    fn resolve_dispute(
        roster: &Roster<Self>,
        client_setup: &Self::ClientSetup,
        server_setup: &Self::ServerSetup,
        reveal: &DhReveal<G>,
    ) -> Option<Liar> {
        HashingGenerator::<G>::resolve_dispute(roster, client_setup, server_setup, reveal).ok()
    }
}

/// ElGamal is eager-only: every server decodes and verifies every ciphertext, so the
/// aggregation items are never called (and refuse if they are).
const EAGER_ONLY_SUITE: DcError =
    DcError::InvalidParameters("an eager-only suite does not aggregate unverified ciphertexts");

impl<G: MessageGroup> ProtoSuite for ElGamal<G> {
    type G = G;
    const AGGREGATES: bool = false;
    type Aggregate = ();

    fn aggregate(
        _: &Session<Self>,
        _: &PreparedSlot<Self>,
        _: &[(ClientId, &Self::ClientCiphertext)],
    ) -> Result<(), DcError> {
        Err(EAGER_ONLY_SUITE)
    }

    fn server_ciphertext_for<R: RngCore + CryptoRng + ?Sized>(
        _: &Session<Self>,
        _: &PreparedSlot<Self>,
        _: &Self::ServerState,
        _: &[ClientId],
        _: &mut R,
    ) -> Result<Self::ServerCiphertext, DcError> {
        Err(EAGER_ONLY_SUITE)
    }

    fn verify_server_for(
        _: &Session<Self>,
        _: &PreparedSlot<Self>,
        _: ServerId,
        _: &[ClientId],
        _: &Self::ServerCiphertext,
    ) -> Result<(), DcError> {
        Err(EAGER_ONLY_SUITE)
    }

    fn verify_server_slots_for<R: RngCore + CryptoRng + ?Sized>(
        _: &Session<Self>,
        _: ServerId,
        _: &[ClientId],
        items: &[(&PreparedSlot<Self>, &Self::ServerCiphertext)],
        _: &mut R,
    ) -> Result<(), Vec<usize>> {
        Err((0..items.len()).collect())
    }

    fn reveal_aggregated(
        _: &Session<Self>,
        _: &PreparedSlot<Self>,
        _: &[&()],
        _: &[&Self::ServerCiphertext],
    ) -> Result<Option<Vec<u8>>, DcError> {
        Err(EAGER_ONLY_SUITE)
    }

    fn encode_aggregate(_: &()) -> Vec<u8> {
        Vec::new()
    }

    fn decode_aggregate(_: usize, bytes: &[u8]) -> Result<(), DcDecodeError> {
        if bytes.is_empty() {
            Ok(())
        } else {
            Err(DcDecodeError::Length {
                expected: 0,
                actual: bytes.len(),
            })
        }
    }
}

impl<W: ChunkWidth> ProtoSuite for Pairing<W> {
    type G = G2;
    aggregating!();
}

/// The XOR suite paired with `S` in hybrid mode.
pub type XorOf<S> = Xor<<S as ProtoSuite>::G>;

/// The DC-net sessions of a protocol session.
pub(crate) struct Nets<S: ProtoSuite> {
    pub ver: Session<S>,
    pub xor: Option<Session<XorOf<S>>>,
}

impl<S: ProtoSuite> Clone for Nets<S> {
    fn clone(&self) -> Self {
        Self {
            ver: self.ver.clone(),
            xor: self.xor.clone(),
        }
    }
}

/// A client's secret DC-net state.
pub(crate) struct ClientSecrets<S: ProtoSuite> {
    pub ver: S::ClientState,
    pub xor: Option<XorClientState>,
}

/// A server's secret DC-net state.
pub(crate) struct ServerSecrets<S: ProtoSuite> {
    pub ver: S::ServerState,
    pub xor: Option<XorServerState>,
}

/// A slot of a round with its precomputed suite data.
pub(crate) enum Prepared<S: ProtoSuite> {
    Xor(PreparedSlot<XorOf<S>>),
    Ver(PreparedSlot<S>),
}

/// A decoded client ciphertext.
#[derive(Clone, Debug)]
pub(crate) enum ClientCt<S: ProtoSuite> {
    Xor(XorCiphertext),
    Ver(S::ClientCiphertext),
}

/// A decoded server ciphertext.
#[derive(Clone, Debug)]
pub(crate) enum ServerCt<S: ProtoSuite> {
    Xor(XorCiphertext),
    Ver(S::ServerCiphertext),
}

const NO_XOR: DcError = DcError::InvalidParameters("XOR slot outside hybrid mode");

impl<S: ProtoSuite> Nets<S> {
    fn xor(&self) -> Result<&Session<XorOf<S>>, DcError> {
        self.xor.as_ref().ok_or(NO_XOR)
    }

    pub fn prepare(&self, open: &OpenSlot, round: u64) -> Result<Prepared<S>, DcError> {
        let sr = SlotRound::new(open.slot, round, open.len);
        Ok(match open.kind {
            SlotKind::Xor => Prepared::Xor(PreparedSlot::new(self.xor()?, sr)?),
            SlotKind::Verifiable => Prepared::Ver(PreparedSlot::new(&self.ver, sr)?),
        })
    }

    pub fn decode_client(open: &OpenSlot, bytes: &[u8]) -> Option<ClientCt<S>> {
        match open.kind {
            SlotKind::Xor => XorOf::<S>::decode_client_ciphertext(open.len, bytes)
                .ok()
                .map(ClientCt::Xor),
            SlotKind::Verifiable => S::decode_client_ciphertext(open.len, bytes)
                .ok()
                .map(ClientCt::Ver),
        }
    }

    pub fn decode_server(open: &OpenSlot, bytes: &[u8]) -> Option<ServerCt<S>> {
        match open.kind {
            SlotKind::Xor => XorOf::<S>::decode_server_ciphertext(open.len, bytes)
                .ok()
                .map(ServerCt::Xor),
            SlotKind::Verifiable => S::decode_server_ciphertext(open.len, bytes)
                .ok()
                .map(ServerCt::Ver),
        }
    }

    /// A client's encoded ciphertext: owner (with `payload`) if `owner` is given, else cover.
    pub fn client_ciphertext<R: RngCore + CryptoRng + ?Sized>(
        &self,
        secrets: &ClientSecrets<S>,
        prepared: &Prepared<S>,
        owner: Option<(&SigningKey<S::G>, &[u8])>,
        rng: &mut R,
    ) -> Result<Vec<u8>, DcError> {
        match prepared {
            Prepared::Xor(p) => {
                let xs = self.xor()?;
                let st = secrets.xor.as_ref().ok_or(NO_XOR)?;
                let ct = match owner {
                    Some((key, m)) => XorOf::<S>::owner(xs, p, st, key, m, rng)?,
                    None => XorOf::<S>::cover(xs, p, st, rng)?,
                };
                Ok(XorOf::<S>::encode_client_ciphertext(&ct))
            }
            Prepared::Ver(p) => {
                let ct = match owner {
                    Some((key, m)) => S::owner(&self.ver, p, &secrets.ver, key, m, rng)?,
                    None => S::cover(&self.ver, p, &secrets.ver, rng)?,
                };
                Ok(S::encode_client_ciphertext(&ct))
            }
        }
    }

    /// Verifies a slot's client ciphertexts; returns every invalid client (empty: all valid).
    /// XOR ciphertexts carry no proof and always pass.
    pub fn verify_clients<R: RngCore + CryptoRng + ?Sized>(
        &self,
        prepared: &Prepared<S>,
        items: &[(ClientId, &ClientCt<S>)],
        rng: &mut R,
    ) -> Vec<ClientId> {
        let Prepared::Ver(p) = prepared else {
            return Vec::new();
        };
        let mut bad = Vec::new();
        let mut ver = Vec::with_capacity(items.len());
        for (c, ct) in items {
            match ct {
                ClientCt::Ver(v) => ver.push((*c, v)),
                ClientCt::Xor(_) => bad.push(*c),
            }
        }
        if let Err(mut b) = S::verify_clients(&self.ver, p, &ver, rng) {
            bad.append(&mut b);
        }
        bad.sort_unstable();
        bad
    }

    pub fn server_ciphertext<R: RngCore + CryptoRng + ?Sized>(
        &self,
        secrets: &ServerSecrets<S>,
        prepared: &Prepared<S>,
        accepted: &[(ClientId, &ClientCt<S>)],
        rng: &mut R,
    ) -> Result<Vec<u8>, DcError> {
        match prepared {
            Prepared::Xor(p) => {
                let cts = xor_items(accepted)?;
                let st = secrets.xor.as_ref().ok_or(NO_XOR)?;
                let ct = XorOf::<S>::server_ciphertext(self.xor()?, p, st, &cts, rng)?;
                Ok(XorOf::<S>::encode_server_ciphertext(&ct))
            }
            Prepared::Ver(p) => {
                let cts = ver_items(accepted)?;
                let ct = S::server_ciphertext(&self.ver, p, &secrets.ver, &cts, rng)?;
                Ok(S::encode_server_ciphertext(&ct))
            }
        }
    }

    /// Verifies server `server`'s ciphertext (XOR ones cannot be verified: always `Ok`).
    pub fn verify_server(
        &self,
        prepared: &Prepared<S>,
        server: ServerId,
        accepted: &[(ClientId, &ClientCt<S>)],
        ct: &ServerCt<S>,
    ) -> Result<(), DcError> {
        match (prepared, ct) {
            (Prepared::Xor(_), ServerCt::Xor(_)) => Ok(()),
            (Prepared::Ver(p), ServerCt::Ver(c)) => {
                S::verify_server(&self.ver, p, server, &ver_items(accepted)?, c)
            }
            _ => Err(DcError::InvalidServerProof { server }),
        }
    }

    /// Verifies server `server`'s ciphertexts of the given verifiable slots over the accepted
    /// ids in one batch (aggregating suites); on failure the positions of the invalid ones.
    pub fn verify_server_slots_for<R: RngCore + CryptoRng + ?Sized>(
        &self,
        server: ServerId,
        accepted: &[ClientId],
        items: &[(&PreparedSlot<S>, &ServerCt<S>)],
        rng: &mut R,
    ) -> Result<(), Vec<usize>> {
        let mut ver = Vec::with_capacity(items.len());
        let mut bad = Vec::new();
        for (k, (p, ct)) in items.iter().enumerate() {
            match ct {
                ServerCt::Ver(c) => ver.push((*p, c)),
                ServerCt::Xor(_) => bad.push(k),
            }
        }
        if !bad.is_empty() {
            return Err(bad);
        }
        S::verify_server_slots_for(&self.ver, server, accepted, &ver, rng)
    }

    /// The sum of a verifiable slot's given client ciphertexts (`None` for XOR slots).
    pub fn aggregate(
        &self,
        prepared: &Prepared<S>,
        items: &[(ClientId, &ClientCt<S>)],
    ) -> Result<Option<S::Aggregate>, DcError> {
        match prepared {
            Prepared::Xor(_) => Ok(None),
            Prepared::Ver(p) => S::aggregate(&self.ver, p, &ver_items(items)?).map(Some),
        }
    }

    /// A verifiable slot's server ciphertext over the accepted ids (aggregating suites).
    pub fn server_ciphertext_for<R: RngCore + CryptoRng + ?Sized>(
        &self,
        secrets: &ServerSecrets<S>,
        prepared: &PreparedSlot<S>,
        accepted: &[ClientId],
        rng: &mut R,
    ) -> Result<Vec<u8>, DcError> {
        let ct = S::server_ciphertext_for(&self.ver, prepared, &secrets.ver, accepted, rng)?;
        Ok(S::encode_server_ciphertext(&ct))
    }

    /// Reveals a verifiable slot from per-server aggregates; same result shape as
    /// [`Nets::reveal`].
    #[allow(clippy::type_complexity)]
    pub fn reveal_aggregated(
        &self,
        prepared: &PreparedSlot<S>,
        aggregates: &[&S::Aggregate],
        servers: &[&ServerCt<S>],
    ) -> Result<Result<Option<Vec<u8>>, Vec<u8>>, DcError> {
        let sv: Vec<&S::ServerCiphertext> = servers
            .iter()
            .map(|s| match s {
                ServerCt::Ver(x) => Ok(x),
                ServerCt::Xor(_) => Err(DcError::InvalidParameters("XOR server ciphertext")),
            })
            .collect::<Result<_, _>>()?;
        match S::reveal_aggregated(&self.ver, prepared, aggregates, &sv) {
            Ok(m) => Ok(Ok(m)),
            Err(DcError::CorruptReveal(_)) => Ok(Err(Vec::new())),
            Err(e) => Err(e),
        }
    }

    /// Reveals a slot. `Ok(Ok(message))` (`None`: empty), `Ok(Err(raw))`: corrupt output, with
    /// the raw XOR combination for XOR slots (empty for verifiable ones).
    #[allow(clippy::type_complexity)]
    pub fn reveal(
        &self,
        prepared: &Prepared<S>,
        accepted: &[(ClientId, &ClientCt<S>)],
        servers: &[&ServerCt<S>],
    ) -> Result<Result<Option<Vec<u8>>, Vec<u8>>, DcError> {
        match prepared {
            Prepared::Xor(p) => {
                let cts = xor_items(accepted)?;
                let sv: Vec<&XorCiphertext> = servers
                    .iter()
                    .map(|s| match s {
                        ServerCt::Xor(x) => Ok(x),
                        ServerCt::Ver(_) => Err(NO_XOR),
                    })
                    .collect::<Result<_, _>>()?;
                match XorOf::<S>::reveal(self.xor()?, p, &cts, &sv) {
                    Ok(m) => Ok(Ok(m)),
                    Err(DcError::CorruptReveal(_)) => {
                        let mut raw = vec![0u8; XorOf::<S>::frame_len(p.len())];
                        for ct in cts.iter().map(|(_, c)| *c).chain(sv.iter().copied()) {
                            for (o, b) in raw.iter_mut().zip(&ct.bytes) {
                                *o ^= *b;
                            }
                        }
                        Ok(Err(raw))
                    }
                    Err(e) => Err(e),
                }
            }
            Prepared::Ver(p) => {
                let cts = ver_items(accepted)?;
                let sv: Vec<&S::ServerCiphertext> = servers
                    .iter()
                    .map(|s| match s {
                        ServerCt::Ver(x) => Ok(x),
                        ServerCt::Xor(_) => {
                            Err(DcError::InvalidParameters("XOR server ciphertext"))
                        }
                    })
                    .collect::<Result<_, _>>()?;
                match S::reveal(&self.ver, p, &cts, &sv) {
                    Ok(m) => Ok(Ok(m)),
                    Err(DcError::CorruptReveal(_)) => Ok(Err(Vec::new())),
                    Err(e) => Err(e),
                }
            }
        }
    }
}

fn xor_items<'a, S: ProtoSuite>(
    items: &[(ClientId, &'a ClientCt<S>)],
) -> Result<Vec<(ClientId, &'a XorCiphertext)>, DcError> {
    items
        .iter()
        .map(|(c, ct)| match ct {
            ClientCt::Xor(x) => Ok((*c, x)),
            ClientCt::Ver(_) => Err(DcError::InvalidClientProof { client: *c }),
        })
        .collect()
}

#[allow(clippy::type_complexity)]
fn ver_items<'a, S: ProtoSuite>(
    items: &[(ClientId, &'a ClientCt<S>)],
) -> Result<Vec<(ClientId, &'a S::ClientCiphertext)>, DcError> {
    items
        .iter()
        .map(|(c, ct)| match ct {
            ClientCt::Ver(x) => Ok((*c, x)),
            ClientCt::Xor(_) => Err(DcError::InvalidClientProof { client: *c }),
        })
        .collect()
}
