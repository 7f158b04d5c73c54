//! Settling a set-up commitment dispute: a DH reveal and the verdict naming the liar.

use rand_core::{CryptoRng, RngCore};
use verdict_group::MessageGroup;
use verdict_nizk::SigningKey;

use crate::dh::DhReveal;
use crate::error::{DcError, Liar, SetupError};
use crate::ids::{ClientId, Party, ServerId};
use crate::suite::{Ciphersuite, Roster};

use super::types::{Commitments, HashingGenerator, pair_secret};

impl<G: MessageGroup> HashingGenerator<G> {
    /// Client `client` reveals its DH value with `server` to settle a commitment dispute.
    pub fn dispute_client<R: RngCore + CryptoRng + ?Sized>(
        roster: &Roster<Self>,
        client: ClientId,
        key: &SigningKey<G>,
        server: ServerId,
        rng: &mut R,
    ) -> Result<DhReveal<G>, DcError> {
        DhReveal::reveal_client(roster, client, key, server, rng)
    }

    /// Server `server` reveals its DH value with `client` to settle a commitment dispute.
    pub fn dispute_server<R: RngCore + CryptoRng + ?Sized>(
        roster: &Roster<Self>,
        server: ServerId,
        key: &SigningKey<G>,
        client: ClientId,
        rng: &mut R,
    ) -> Result<DhReveal<G>, DcError> {
        DhReveal::reveal_server(roster, server, key, client, rng)
    }

    /// Settles a commitment dispute for the pair named in `reveal`: verifies the revealed DH
    /// value, recomputes `K_ij` and compares it with the client's and the server's published
    /// copies. An invalid reveal names its prover as the liar.
    pub fn resolve_dispute(
        roster: &Roster<Self>,
        client_setup: &Commitments<G>,
        server_setup: &Commitments<G>,
        reveal: &DhReveal<G>,
    ) -> Result<Liar, DcError> {
        let (i, j) = (reveal.client(), reveal.server());
        let x = roster.client(i)?;
        let z = roster.server(j)?;
        let from_client = client_setup
            .commitments
            .get(j.index())
            .ok_or(DcError::Setup(SetupError::Malformed {
                culprit: Party::Client(i),
            }))?;
        let from_server = server_setup
            .commitments
            .get(i.index())
            .ok_or(DcError::Setup(SetupError::Malformed {
                culprit: Party::Server(j),
            }))?;
        let dh = match reveal.verify(&Self::ID, roster.session(), x.point(), z.point()) {
            Ok(dh) => dh,
            Err(_) => {
                return Ok(match reveal.prover() {
                    Party::Client(c) => Liar::Client(c),
                    Party::Server(s) => Liar::Server(s),
                });
            }
        };
        let s = pair_secret::<G>(roster.session(), dh, i, j);
        let k = G::mul_generator(s.expose());
        match (k == *from_client.point(), k == *from_server.point()) {
            (true, false) => Ok(Liar::Server(j)),
            (false, true) => Ok(Liar::Client(i)),
            (false, false) => Ok(Liar::Both(i, j)),
            (true, true) => Err(DcError::InvalidParameters(
                "no dispute: both commitments are correct",
            )),
        }
    }
}
