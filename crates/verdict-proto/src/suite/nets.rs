//! The per-session DC-net state of a member: the session of its verifiable suite and, in
//! hybrid mode, of the XOR suite, with per-slot dispatch between the two.

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::xor::{XorCiphertext, XorClientState, XorServerState};
use verdict_dcnet::{Ciphersuite, ClientId, DcError, PreparedSlot, ServerId, Session, SlotRound};
use verdict_nizk::SigningKey;

use super::aggregation::AggregatingOps;
use super::{ProtoSuite, XorOf};
use crate::slot::{OpenSlot, SlotKind};

/// The DC-net sessions of a protocol session.
pub(crate) struct SessionNets<S: ProtoSuite> {
    pub ver: Session<S>,
    pub xor: Option<Session<XorOf<S>>>,
}

impl<S: ProtoSuite> Clone for SessionNets<S> {
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

impl<S: ProtoSuite> SessionNets<S> {
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

    /// The aggregating operations over this session (`None`: the suite is eager-only).
    pub fn aggregator(&self) -> Option<Aggregator<'_, S>> {
        S::AGGREGATION
            .ops()
            .map(|ops| Aggregator { nets: self, ops })
    }

    /// Reveals a slot from every accepted client's ciphertext and every server's.
    pub fn reveal(
        &self,
        prepared: &Prepared<S>,
        accepted: &[(ClientId, &ClientCt<S>)],
        servers: &[&ServerCt<S>],
    ) -> Revealed {
        let revealed = match prepared {
            Prepared::Xor(p) => {
                let (Ok(cts), Some(sv), Ok(xs)) =
                    (xor_items(accepted), xor_servers::<S>(servers), self.xor())
                else {
                    return Revealed::Corrupt(Vec::new());
                };
                match XorOf::<S>::reveal(xs, p, &cts, &sv) {
                    Err(DcError::CorruptReveal(_)) => {
                        // The raw combination is what an accusation's bits are read from.
                        let mut raw = vec![0u8; XorOf::<S>::frame_len(p.len())];
                        for ct in cts.iter().map(|(_, c)| *c).chain(sv.iter().copied()) {
                            for (o, b) in raw.iter_mut().zip(&ct.bytes) {
                                *o ^= *b;
                            }
                        }
                        return Revealed::Corrupt(raw);
                    }
                    other => other,
                }
            }
            Prepared::Ver(p) => {
                let (Ok(cts), Some(sv)) = (ver_items(accepted), ver_servers::<S>(servers)) else {
                    return Revealed::Corrupt(Vec::new());
                };
                S::reveal(&self.ver, p, &cts, &sv)
            }
        };
        Revealed::from(revealed)
    }
}

/// What revealing a slot gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Revealed {
    /// Nobody transmitted.
    Empty,
    /// The owner's payload (still to be interpreted: signature, framing).
    Payload(Vec<u8>),
    /// The combination does not decode (or the inputs did not fit the slot): the raw XOR
    /// combination for XOR slots, empty for verifiable ones.
    Corrupt(Vec<u8>),
}

impl From<Result<Option<Vec<u8>>, DcError>> for Revealed {
    fn from(revealed: Result<Option<Vec<u8>>, DcError>) -> Self {
        match revealed {
            Ok(None) => Self::Empty,
            Ok(Some(payload)) => Self::Payload(payload),
            Err(_) => Self::Corrupt(Vec::new()),
        }
    }
}

/// The aggregating operations of a session's suite over that session; see
/// [`SessionNets::aggregator`].
pub(crate) struct Aggregator<'a, S: ProtoSuite> {
    nets: &'a SessionNets<S>,
    ops: &'static dyn AggregatingOps<S>,
}

impl<S: ProtoSuite> Aggregator<'_, S> {
    /// The sum of a verifiable slot's given client ciphertexts (`None` for XOR slots).
    pub fn aggregate(
        &self,
        prepared: &Prepared<S>,
        items: &[(ClientId, &ClientCt<S>)],
    ) -> Result<Option<S::Aggregate>, DcError> {
        match prepared {
            Prepared::Xor(_) => Ok(None),
            Prepared::Ver(p) => self
                .ops
                .aggregate(&self.nets.ver, p, &ver_items(items)?)
                .map(Some),
        }
    }

    /// A verifiable slot's server ciphertext over the accepted ids.
    pub fn server_ciphertext_for<R: RngCore + CryptoRng>(
        &self,
        secrets: &ServerSecrets<S>,
        prepared: &PreparedSlot<S>,
        accepted: &[ClientId],
        rng: &mut R,
    ) -> Result<Vec<u8>, DcError> {
        let ct = self.ops.server_ciphertext_for(
            &self.nets.ver,
            prepared,
            &secrets.ver,
            accepted,
            rng,
        )?;
        Ok(S::encode_server_ciphertext(&ct))
    }

    /// Verifies server `server`'s ciphertexts of the given verifiable slots over the accepted
    /// ids in one batch; on failure the positions of the invalid ones.
    pub fn verify_server_slots_for<R: RngCore + CryptoRng>(
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
        self.ops
            .verify_server_slots_for(&self.nets.ver, server, accepted, &ver, rng)
    }

    /// Reveals a verifiable slot from per-server aggregates and every server's ciphertext.
    pub fn reveal(
        &self,
        prepared: &PreparedSlot<S>,
        aggregates: &[&S::Aggregate],
        servers: &[&ServerCt<S>],
    ) -> Revealed {
        let Some(sv) = ver_servers::<S>(servers) else {
            return Revealed::Corrupt(Vec::new());
        };
        Revealed::from(
            self.ops
                .reveal_aggregated(&self.nets.ver, prepared, aggregates, &sv),
        )
    }
}

fn xor_servers<'a, S: ProtoSuite>(servers: &[&'a ServerCt<S>]) -> Option<Vec<&'a XorCiphertext>> {
    servers
        .iter()
        .map(|s| match s {
            ServerCt::Xor(x) => Some(x),
            ServerCt::Ver(_) => None,
        })
        .collect()
}

fn ver_servers<'a, S: ProtoSuite>(
    servers: &[&'a ServerCt<S>],
) -> Option<Vec<&'a S::ServerCiphertext>> {
    servers
        .iter()
        .map(|s| match s {
            ServerCt::Ver(x) => Some(x),
            ServerCt::Xor(_) => None,
        })
        .collect()
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
