//! Provable pad bits, the blame protocol's evidence: either side of a client–server pair
//! reveals `DH(x_i, Z_j)` with a DLEQ proof ([`DhReveal`]); anyone then recomputes the pair key
//! `k_ij` and the pad bit at any position of any slot, so a client's or a server's claim about
//! one bit of its pad can be checked by everyone.

use rand_core::{CryptoRng, RngCore};
use verdict_group::Group;
use verdict_nizk::SigningKey;
use zeroize::Zeroize;

use super::{Xor, XorClientState, XorServerState, pad_prefix, pad_stream, pair_key};
use crate::dh::DhReveal;
use crate::error::DcError;
use crate::ids::{ClientId, ServerId, SessionId, SlotRound};
use crate::suite::{Ciphersuite, Roster, Session};

impl<G: Group> Xor<G> {
    /// Client `client` reveals its DH secret with `server`, provably (blame rebuttal).
    pub fn pad_bit_reveal_client<R: RngCore + CryptoRng + ?Sized>(
        roster: &Roster<Self>,
        client: ClientId,
        key: &SigningKey<G>,
        server: ServerId,
        rng: &mut R,
    ) -> Result<DhReveal<G>, DcError> {
        DhReveal::reveal_client(roster, client, key, server, rng)
    }

    /// Server `server` reveals its DH secret with `client`, provably.
    pub fn pad_bit_reveal_server<R: RngCore + CryptoRng + ?Sized>(
        roster: &Roster<Self>,
        server: ServerId,
        key: &SigningKey<G>,
        client: ClientId,
        rng: &mut R,
    ) -> Result<DhReveal<G>, DcError> {
        DhReveal::reveal_server(roster, server, key, client, rng)
    }

    /// Verifies `reveal` and recomputes the pad bit of its pair at position `bit` of `slot`.
    /// A reveal with an invalid proof names its prover ([`DcError::InvalidDhReveal`]).
    pub fn verify_pad_bit(
        roster: &Roster<Self>,
        reveal: &DhReveal<G>,
        slot: SlotRound,
        bit: u64,
    ) -> Result<bool, DcError> {
        let x = roster.client(reveal.client())?;
        let z = roster.server(reveal.server())?;
        let dh = reveal.verify(&Self::ID, roster.session(), x.point(), z.point())?;
        let key = pair_key::<G>(roster.session(), dh, reveal.client(), reveal.server());
        Self::stream_bit(&key, roster.session(), slot, bit)
    }

    fn stream_bit(
        key: &[u8; 32],
        session: &SessionId,
        slot: SlotRound,
        bit: u64,
    ) -> Result<bool, DcError> {
        Self::check_len(slot.len)?;
        if bit / 8 >= Self::frame_len(slot.len) as u64 {
            return Err(DcError::InvalidParameters("bit index outside the slot"));
        }
        let mut r = pad_stream(key, &pad_prefix::<G>(session), slot);
        r.set_position(bit / 8);
        let mut b = [0u8; 1];
        r.fill(&mut b);
        r.zeroize();
        Ok((b[0] >> (bit % 8)) & 1 == 1)
    }

    /// The pad bit a client shares with `server` (what the client claims in the blame protocol).
    pub fn client_pad_bit(
        session: &Session<Self>,
        state: &XorClientState,
        server: ServerId,
        slot: SlotRound,
        bit: u64,
    ) -> Result<bool, DcError> {
        let key = state
            .keys
            .get(server.index())
            .ok_or(DcError::UnknownServer { server })?;
        Self::stream_bit(key, session.id(), slot, bit)
    }

    /// The pad bit a server shares with `client` (what the server publishes in the blame
    /// protocol).
    pub fn server_pad_bit(
        session: &Session<Self>,
        state: &XorServerState,
        client: ClientId,
        slot: SlotRound,
        bit: u64,
    ) -> Result<bool, DcError> {
        let key = state
            .keys
            .get(client.index())
            .ok_or(DcError::UnknownClient { client })?;
        Self::stream_bit(key, session.id(), slot, bit)
    }
}
