//! The ElGamal suite as a [`Ciphersuite`] and [`Verifiable`] suite over the direct API.

use core::fmt;
use core::marker::PhantomData;

use rand_core::{CryptoRng, RngCore};
use verdict_group::framing::{self, decode_message};
use verdict_group::{FrameError, Group, MessageGroup, Ristretto255, SecretScalar};
use verdict_nizk::SigningKey;

use crate::error::{DcDecodeError, DcError, SetupError};
use crate::ids::{ClientId, ServerId, SlotRound, SuiteId};
use crate::shared::{check_roster_key, combine_no_setup, indexed_servers};
use crate::suite::{
    Ciphersuite, MAX_SLOT_LEN, PreparedSlot, Roster, Session, Verifiable, check_accepted,
};
use crate::verifiable::{SlotParams, SuiteError, batch_outcome};
use crate::wire::DleqCiphertext;

use super::ciphertext::{
    ClientCiphertext, ServerCiphertext, VERSION, client_ciphertext_len, server_ciphertext_len,
};
use super::slot::ElGamalSlot;

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
    pub(super) client: ClientId,
}

/// A server's per-session state: its index and secret `z_j` (zeroized on drop).
#[derive(Debug)]
pub struct ElGamalServerState<G: Group> {
    pub(super) server: ServerId,
    pub(super) secret: SecretScalar<G::Scalar>,
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
    use super::*;

    /// The largest slot's boundary is checked for every suite by `testing::bad_input`.
    #[test]
    fn debug_names_the_group() {
        assert_eq!(
            format!("{:?}", ElGamal::<Ristretto255>(PhantomData)),
            "ElGamal<ristretto255>"
        );
    }
}
