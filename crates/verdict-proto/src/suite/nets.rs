//! The per-session DC-net state of a member: the session of its verifiable suite and, in
//! hybrid mode, of the XOR suite, with per-slot dispatch between the two.

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::xor::{XorCiphertext, XorClientState, XorServerState, xor_into};
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

    /// Every open slot's per-round data (a verifiable slot's generators are one
    /// hash-to-group per element): slots in parallel with the `parallel` feature; the first
    /// failure in slot order is returned.
    pub fn prepare_all(&self, open: &[OpenSlot], round: u64) -> Result<Vec<Prepared<S>>, DcError> {
        verdict_group::par::map(open, |o| self.prepare(o, round))
            .into_iter()
            .collect()
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

    /// Whether `bytes` can be an XOR slot's client ciphertext: any bytes of the slot's frame
    /// length are one, so this is all there is to check. Servers sum them as they are, never
    /// decoding them into ciphertexts of their own.
    pub fn xor_client_fits(open: &OpenSlot, bytes: &[u8]) -> bool {
        open.kind == SlotKind::Xor && bytes.len() == XorOf::<S>::frame_len(open.len)
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

    /// This server's ciphertext of a slot over the accepted set `ids`; `accepted` holds their
    /// decoded ciphertexts of the slot, which only a verifiable slot's ciphertext depends on
    /// (an XOR server ciphertext is the pads shared with `ids`, whatever they sent).
    pub fn server_ciphertext<R: RngCore + CryptoRng + ?Sized>(
        &self,
        secrets: &ServerSecrets<S>,
        prepared: &Prepared<S>,
        ids: &[ClientId],
        accepted: &[(ClientId, &ClientCt<S>)],
        rng: &mut R,
    ) -> Result<Vec<u8>, DcError> {
        match prepared {
            Prepared::Xor(p) => {
                let st = secrets.xor.as_ref().ok_or(NO_XOR)?;
                let ct = XorOf::<S>::server_ciphertext_for_ids(self.xor()?, p, st, ids)?;
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

    /// Reveals a verifiable slot from every accepted client's ciphertext and every server's.
    pub fn reveal_ver(
        &self,
        prepared: &PreparedSlot<S>,
        accepted: &[(ClientId, &ClientCt<S>)],
        servers: &[&ServerCt<S>],
    ) -> Revealed {
        let (Ok(cts), Some(sv)) = (ver_items(accepted), ver_servers::<S>(servers)) else {
            return Revealed::Corrupt(Vec::new());
        };
        Revealed::from(S::reveal(&self.ver, prepared, &cts, &sv))
    }

    /// Reveals an XOR slot from `client_sums`, whose `⊕` is that of every accepted client's
    /// ciphertext (each server's inventory summed as it was parsed), and every server's
    /// ciphertext. A corrupt slot comes with the raw combination, which an accusation's bits
    /// are read from.
    pub fn reveal_xor(
        &self,
        prepared: &PreparedSlot<XorOf<S>>,
        client_sums: &[&[u8]],
        servers: &[&ServerCt<S>],
    ) -> Revealed {
        let (Some(sv), Ok(xs)) = (xor_servers::<S>(servers), self.xor()) else {
            return Revealed::Corrupt(Vec::new());
        };
        let n = XorOf::<S>::frame_len(prepared.len());
        let lengths_fit = client_sums.iter().all(|c| c.len() == n)
            && sv.iter().all(|c| c.bytes.len() == n)
            && sv.len() == xs.roster().num_servers();
        if !lengths_fit {
            return Revealed::Corrupt(Vec::new());
        }
        let mut combined = vec![0u8; n];
        for part in client_sums
            .iter()
            .copied()
            .chain(sv.iter().map(|c| &c.bytes[..]))
        {
            xor_into(&mut combined, part);
        }
        match XorOf::<S>::open_combined(xs, prepared, &combined) {
            Err(DcError::CorruptReveal(_)) => Revealed::Corrupt(combined),
            other => Revealed::from(other),
        }
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

    /// The aggregate of a verifiable slot over the union of disjoint sets of clients, from
    /// each set's aggregate (`None` for XOR slots).
    pub fn combine(
        &self,
        prepared: &Prepared<S>,
        parts: &[&S::Aggregate],
    ) -> Result<Option<S::Aggregate>, DcError> {
        match prepared {
            Prepared::Xor(_) => Ok(None),
            Prepared::Ver(p) => self.ops.combine(p, parts).map(Some),
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
