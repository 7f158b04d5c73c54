//! The bridge between the protocol and `verdict-dcnet`: which suites a session can run
//! ([`ProtoSuite`] and its implementations), whether their servers aggregate
//! ([`Aggregation`]), and the per-session DC-net state that dispatches each slot to the
//! session's verifiable suite or (in hybrid mode) the XOR suite (`nets`).

mod aggregation;
mod impls;
mod nets;

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{ClientId, DhReveal, Liar, Roster, ServerId, Verifiable, Xor};
use verdict_group::Group;
use verdict_nizk::SigningKey;

pub use aggregation::{AggregatingOps, Aggregation};
pub(crate) use nets::{
    ClientCt, ClientSecrets, Prepared, Revealed, ServerCt, ServerSecrets, SessionNets,
};

/// A verifiable suite the protocol can run: its long-term and pseudonym keys are Schnorr keys
/// in one group [`ProtoSuite::G`], which is also the group of the pseudonym shuffle, of message
/// signatures and (in hybrid mode) of the XOR suite's Diffie–Hellman keys.
pub trait ProtoSuite: Verifiable<KeyGroup = Self::G> {
    /// The key group.
    type G: Group;

    /// A per-server sum of client ciphertexts of one slot. Eager-only suites have none
    /// ([`core::convert::Infallible`]): their servers never combine unverified ciphertexts.
    type Aggregate: Clone + core::fmt::Debug + PartialEq + Send + Sync;

    /// Whether servers may combine each other's per-server aggregates of client ciphertexts
    /// instead of decoding every ciphertext (see `verdict_dcnet::aggregate`); the aggregating
    /// operations are reachable only through [`Aggregation::Aggregating`].
    const AGGREGATION: Aggregation<Self>;

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

    /// The set-up message that stands in for `client`, absent at set-up, so that the suite's
    /// session can be built over the whole roster: it agrees with what every server published
    /// for that client, so it raises no dispute. It is never used for a ciphertext, because
    /// an absent client is excluded from round 0 on (its pads are in no server ciphertext).
    fn absent_client_setup(
        client: ClientId,
        server_setups: &[Self::ServerSetup],
    ) -> Self::ClientSetup;
}

/// The XOR suite paired with `S` in hybrid mode.
pub type XorOf<S> = Xor<<S as ProtoSuite>::G>;
