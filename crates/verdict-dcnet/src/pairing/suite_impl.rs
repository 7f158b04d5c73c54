//! The pairing suite as a [`Ciphersuite`], [`Verifiable`] and [`Aggregating`] suite over the
//! direct API, with the chunk width as a type.

use core::fmt;
use core::marker::PhantomData;

use rand_core::{CryptoRng, RngCore};
use verdict_group::SecretScalar;
use verdict_group::bls12_381::{G2, Gt};
use verdict_nizk::SigningKey;

use super::gt_table::{self, ChunkBits, GtFrameError, GtTable, decode_message};
use crate::aggregate::{Aggregating, ElementSum};
use crate::error::{DcDecodeError, DcError, SetupError};
use crate::ids::{ClientId, ServerId, SlotRound, SuiteId};
use crate::shared::{check_roster_key, combine_no_setup, indexed_servers};
use crate::suite::{
    Ciphersuite, MAX_SLOT_LEN, PreparedSlot, Roster, Session, Verifiable, check_accepted,
    check_accepted_ids,
};
use crate::verifiable::{SlotParams, SuiteError, batch_outcome};

use super::slot::{
    ClientCiphertext, Fr, PairingSlot, ServerCiphertext, client_ciphertext_len,
    server_ciphertext_len,
};

/// The chunk width of a [`Pairing`] suite, as a type.
pub trait ChunkWidth: Send + Sync + 'static {
    /// The width.
    const BITS: ChunkBits;
    /// The construction name in the suite id.
    const CONSTRUCTION: &'static str;
}

/// 16-bit chunks (2 bytes per GT element; decoding is one lookup).
#[derive(Debug)]
pub struct Chunk16;
/// 24-bit chunks (3 bytes per GT element; decoding is baby-step/giant-step).
#[derive(Debug)]
pub struct Chunk24;

impl ChunkWidth for Chunk16 {
    const BITS: ChunkBits = ChunkBits::B16;
    const CONSTRUCTION: &'static str = "pairing-chunk16";
}
impl ChunkWidth for Chunk24 {
    const BITS: ChunkBits = ChunkBits::B24;
    const CONSTRUCTION: &'static str = "pairing-chunk24";
}

/// The pairing-based suite on BLS12-381 as a [`Ciphersuite`]. No set-up. Long-term keys and
/// pseudonym keys are Schnorr keys in G2. The reveal decodes with the process-wide
/// [`GtTable::global`] (built on first use).
pub struct Pairing<W: ChunkWidth = Chunk16>(PhantomData<fn() -> W>);

impl<W: ChunkWidth> fmt::Debug for Pairing<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Pairing<{}>", W::CONSTRUCTION)
    }
}

/// A client's per-session state: its index and long-term secret `x_i` (zeroized on drop).
#[derive(Debug)]
pub struct PairingClientState {
    pub(super) client: ClientId,
    pub(super) secret: SecretScalar<Fr>,
}

/// A server's per-session state: its index and secret `z_j` (zeroized on drop).
#[derive(Debug)]
pub struct PairingServerState {
    pub(super) server: ServerId,
    pub(super) secret: SecretScalar<Fr>,
}

fn elements_for(bits: ChunkBits, len: usize) -> Result<usize, DcDecodeError> {
    if len > MAX_SLOT_LEN {
        return Err(DcDecodeError::CapacityTooLarge);
    }
    Ok(gt_table::elements_needed(bits, len))
}

impl<W: ChunkWidth> Pairing<W> {
    fn dc(slot: &PreparedSlot<Self>) -> impl Fn(SuiteError) -> DcError + '_ {
        move |e| e.into_dc(slot.slot(), slot.len())
    }

    fn accepted_keys(
        session: &Session<Self>,
        accepted: &[ClientId],
    ) -> Result<Vec<(u32, G2)>, DcError> {
        check_accepted_ids(session.roster(), accepted)?;
        accepted
            .iter()
            .map(|c| Ok((c.0, *session.roster().client(*c)?.point())))
            .collect()
    }
}

impl<W: ChunkWidth> Ciphersuite for Pairing<W> {
    const ID: SuiteId = SuiteId::new(W::CONSTRUCTION, "bls12-381", 2);
    const EAGER_ONLY: bool = false;

    type KeyGroup = G2;
    type ClientSetup = ();
    type ServerSetup = ();
    type SessionPublic = ();
    type ClientState = PairingClientState;
    type ServerState = PairingServerState;
    type SlotData = PairingSlot;
    type ClientCiphertext = ClientCiphertext;
    type ServerCiphertext = ServerCiphertext;

    fn client_setup<R: RngCore + CryptoRng + ?Sized>(
        roster: &Roster<Self>,
        client: ClientId,
        key: &SigningKey<G2>,
        _rng: &mut R,
    ) -> Result<(PairingClientState, ()), DcError> {
        check_roster_key(key, roster.client(client)?)?;
        Ok((
            PairingClientState {
                client,
                secret: key.secret().clone(),
            },
            (),
        ))
    }

    fn server_setup<R: RngCore + CryptoRng + ?Sized>(
        roster: &Roster<Self>,
        server: ServerId,
        key: &SigningKey<G2>,
        _rng: &mut R,
    ) -> Result<(PairingServerState, ()), DcError> {
        check_roster_key(key, roster.server(server)?)?;
        Ok((
            PairingServerState {
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

    fn prepare_slot(session: &Session<Self>, slot: SlotRound) -> Result<PairingSlot, DcError> {
        let params = SlotParams {
            session: session.id().0,
            round: slot.round,
            slot: slot.slot,
            elements: elements_for(W::BITS, slot.len)?,
        };
        let keys: Vec<G2> = session
            .roster()
            .servers()
            .iter()
            .map(|k| *k.point())
            .collect();
        PairingSlot::new(params, &keys, W::BITS).map_err(|e| e.into_dc(slot.slot, slot.len))
    }

    fn cover<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        state: &PairingClientState,
        rng: &mut R,
    ) -> Result<ClientCiphertext, DcError> {
        let y = session.roster().pseudonym(slot.slot())?;
        slot.data()
            .cover_create(state.client.0, &state.secret, y.point(), rng)
            .map_err(Self::dc(slot))
    }

    fn owner<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        state: &PairingClientState,
        pseudonym: &SigningKey<G2>,
        message: &[u8],
        rng: &mut R,
    ) -> Result<ClientCiphertext, DcError> {
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
            .owner_create(
                state.client.0,
                &state.secret,
                pseudonym.secret(),
                message,
                GtTable::global(),
                rng,
            )
            .map_err(Self::dc(slot))
    }

    fn server_ciphertext<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        state: &PairingServerState,
        accepted: &[(ClientId, &ClientCiphertext)],
        rng: &mut R,
    ) -> Result<ServerCiphertext, DcError> {
        let ids = check_accepted(session.roster(), accepted)?;
        Self::server_ciphertext_for(session, slot, state, &ids, rng)
    }

    fn reveal(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        accepted: &[(ClientId, &ClientCiphertext)],
        servers: &[&ServerCiphertext],
    ) -> Result<Option<Vec<u8>>, DcError> {
        check_accepted(session.roster(), accepted)?;
        let sum = Self::aggregate(session, slot, accepted)?;
        Self::reveal_aggregated(session, slot, &[&sum], servers)
    }

    fn client_ciphertext_len(len: usize) -> usize {
        client_ciphertext_len(gt_table::elements_needed(W::BITS, len))
    }

    fn server_ciphertext_len(len: usize) -> usize {
        server_ciphertext_len(gt_table::elements_needed(W::BITS, len))
    }

    fn encode_client_ciphertext(ct: &ClientCiphertext) -> Vec<u8> {
        ct.to_bytes()
    }

    fn decode_client_ciphertext(
        len: usize,
        bytes: &[u8],
    ) -> Result<ClientCiphertext, DcDecodeError> {
        ClientCiphertext::decode(elements_for(W::BITS, len)?, bytes)
    }

    fn encode_server_ciphertext(ct: &ServerCiphertext) -> Vec<u8> {
        ct.to_bytes()
    }

    fn decode_server_ciphertext(
        len: usize,
        bytes: &[u8],
    ) -> Result<ServerCiphertext, DcDecodeError> {
        ServerCiphertext::decode(elements_for(W::BITS, len)?, bytes)
    }
}

impl<W: ChunkWidth> Verifiable for Pairing<W> {
    fn verify_client(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        client: ClientId,
        ct: &ClientCiphertext,
    ) -> Result<(), DcError> {
        let x = session.roster().client(client)?;
        let y = session.roster().pseudonym(slot.slot())?;
        slot.data()
            .client_verify(client.0, x.point(), y.point(), ct)
            .map_err(Self::dc(slot))
    }

    fn verify_clients<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        items: &[(ClientId, &ClientCiphertext)],
        rng: &mut R,
    ) -> Result<(), Vec<ClientId>> {
        let roster = session.roster();
        let Ok(y) = roster.pseudonym(slot.slot()) else {
            return Err(items.iter().map(|(c, _)| *c).collect());
        };
        let mut unknown = Vec::new();
        let mut known = Vec::with_capacity(items.len());
        for (c, ct) in items {
            match roster.client(*c) {
                Ok(x) => known.push((c.0, *x.point(), *ct)),
                Err(_) => unknown.push(*c),
            }
        }
        let batch = slot.data().client_verify_batch(y.point(), &known, rng);
        batch_outcome(
            items,
            unknown,
            known.iter().map(|(c, _, _)| ClientId(*c)),
            batch,
        )
    }

    fn verify_server(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        server: ServerId,
        accepted: &[(ClientId, &ClientCiphertext)],
        ct: &ServerCiphertext,
    ) -> Result<(), DcError> {
        let ids = check_accepted(session.roster(), accepted)?;
        Self::verify_server_for(session, slot, server, &ids, ct)
    }
}

impl<W: ChunkWidth> Aggregating for Pairing<W> {
    type Aggregate = ElementSum<Gt>;

    fn aggregate(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        items: &[(ClientId, &ClientCiphertext)],
    ) -> Result<ElementSum<Gt>, DcError> {
        let _ = session;
        ElementSum::of_clients(slot.data().slot().elements, items)
    }

    fn combine(
        slot: &PreparedSlot<Self>,
        parts: &[&ElementSum<Gt>],
    ) -> Result<ElementSum<Gt>, DcError> {
        ElementSum::sum(slot.data().slot().elements, parts)
    }

    fn server_ciphertext_for<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        state: &PairingServerState,
        accepted: &[ClientId],
        rng: &mut R,
    ) -> Result<ServerCiphertext, DcError> {
        let keys = Self::accepted_keys(session, accepted)?;
        slot.data()
            .server_create(state.server.0, &state.secret, &keys, rng)
            .map_err(Self::dc(slot))
    }

    fn verify_server_for(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        server: ServerId,
        accepted: &[ClientId],
        ct: &ServerCiphertext,
    ) -> Result<(), DcError> {
        let key = session.roster().server(server)?;
        let keys = Self::accepted_keys(session, accepted)?;
        slot.data()
            .server_verify(server.0, key.point(), &keys, ct)
            .map_err(Self::dc(slot))
    }

    fn reveal_aggregated(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        aggregates: &[&ElementSum<Gt>],
        servers: &[&ServerCiphertext],
    ) -> Result<Option<Vec<u8>>, DcError> {
        let servers = indexed_servers(session.roster(), servers)?;
        let acc = ElementSum::with_servers(slot.data().slot().elements, aggregates, &servers)?;
        match decode_message(GtTable::global(), W::BITS, acc.elements()) {
            Ok(msg) => Ok(Some(msg)),
            Err(GtFrameError::Empty) => Ok(None),
            Err(e) => Err(DcError::CorruptReveal(e.to_string())),
        }
    }

    fn encode_aggregate(aggregate: &ElementSum<Gt>) -> Vec<u8> {
        aggregate.to_bytes()
    }

    fn decode_aggregate(len: usize, bytes: &[u8]) -> Result<ElementSum<Gt>, DcDecodeError> {
        ElementSum::decode(elements_for(W::BITS, len)?, bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The largest slot's boundary is checked for every suite by `testing::bad_input`.
    #[test]
    fn debug_names_the_construction() {
        assert_eq!(
            format!("{:?}", Pairing::<Chunk24>(PhantomData)),
            "Pairing<pairing-chunk24>"
        );
    }
}
