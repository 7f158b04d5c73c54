//! The group configuration: members' long-term keys with their registration proofs, each
//! client's upstream server, the policy, the suite, and the session id derived from all of it.

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{ClientId, Party, ServerId, SessionId};
use verdict_nizk::{Context, KeyRegistration, VerifyingKey};

use crate::error::{ConfigError, MessageError};
use crate::keys::{KeyUse, SecretKeys};
use crate::policy::Policy;
use crate::suite::ProtoSuite;
use crate::wire::{Received, SharedBytes, Writer};

const REGISTRATION_PURPOSE: &[u8] = b"verdict-proto/registration/v2";
const SESSION_CONTEXT: &str = "verdict-proto session id v2";

/// One registered public key: the key and a proof of knowledge of its secret, bound to the
/// group nonce, the member's role and index, and the key's use (rogue-key defence; a
/// registration for one use is not one for another).
pub struct Registered<G: verdict_group::Group> {
    /// The public key.
    pub key: VerifyingKey<G>,
    /// The proof of knowledge.
    pub registration: KeyRegistration<G>,
}

impl<G: verdict_group::Group> Registered<G> {
    /// Registers `key` for `use_` as `member` of the group identified by `nonce`.
    pub fn prove<R: RngCore + CryptoRng + ?Sized>(
        key: &verdict_nizk::SigningKey<G>,
        member: Party,
        use_: KeyUse,
        nonce: &[u8; 32],
        rng: &mut R,
    ) -> Self {
        Self {
            key: key.verifying_key().clone(),
            registration: KeyRegistration::prove(
                key,
                &registration_context(member, use_, nonce),
                rng,
            ),
        }
    }
}

impl<G: verdict_group::Group> Clone for Registered<G> {
    fn clone(&self) -> Self {
        Self {
            key: self.key.clone(),
            registration: self.registration.clone(),
        }
    }
}

/// A member's registered long-term public keys, one per use (see [`crate::keys`]): servers
/// register all four, clients all but the shuffle key.
pub struct Member<S: ProtoSuite> {
    /// Envelope signatures.
    pub signing: Registered<S::G>,
    /// The verifiable DC-net suite's Diffie–Hellman key.
    pub dcnet: Registered<S::G>,
    /// The XOR DC-net's Diffie–Hellman key (used in hybrid mode).
    pub xor: Registered<S::G>,
    /// The pseudonym-shuffle decryption key (servers only).
    pub shuffle: Option<Registered<S::G>>,
}

impl<S: ProtoSuite> Clone for Member<S> {
    fn clone(&self) -> Self {
        Self {
            signing: self.signing.clone(),
            dcnet: self.dcnet.clone(),
            xor: self.xor.clone(),
            shuffle: self.shuffle.clone(),
        }
    }
}

impl<S: ProtoSuite> core::fmt::Debug for Member<S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Member")
            .field("signing", &self.signing.key)
            .finish_non_exhaustive()
    }
}

impl<S: ProtoSuite> Clone for GroupConfig<S> {
    fn clone(&self) -> Self {
        Self {
            policy: self.policy.clone(),
            nonce: self.nonce,
            servers: self.servers.clone(),
            clients: self.clients.clone(),
            upstream: self.upstream.clone(),
        }
    }
}

impl<S: ProtoSuite> core::fmt::Debug for GroupConfig<S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("GroupConfig")
            .field("policy", &self.policy)
            .field("servers", &self.servers.len())
            .field("clients", &self.clients.len())
            .finish_non_exhaustive()
    }
}

impl<S: ProtoSuite> Member<S> {
    /// Registers `keys` as `member` of the group identified by `nonce` (servers register a
    /// shuffle key, clients do not).
    pub fn register<R: RngCore + CryptoRng + ?Sized>(
        keys: &SecretKeys<S::G>,
        member: Party,
        nonce: &[u8; 32],
        rng: &mut R,
    ) -> Self {
        let mut one = |use_: KeyUse| Registered::prove(keys.key(use_), member, use_, nonce, rng);
        Self {
            signing: one(KeyUse::Signing),
            dcnet: one(KeyUse::DcNet),
            xor: one(KeyUse::Xor),
            shuffle: matches!(member, Party::Server(_)).then(|| one(KeyUse::Shuffle)),
        }
    }

    /// The registered key for `use_` (`None`: a client's shuffle key).
    pub fn key(&self, use_: KeyUse) -> Option<&VerifyingKey<S::G>> {
        self.registered(use_).map(|r| &r.key)
    }

    fn registered(&self, use_: KeyUse) -> Option<&Registered<S::G>> {
        match use_ {
            KeyUse::Signing => Some(&self.signing),
            KeyUse::DcNet => Some(&self.dcnet),
            KeyUse::Xor => Some(&self.xor),
            KeyUse::Shuffle => self.shuffle.as_ref(),
        }
    }

    /// Whether `keys` are the secrets of exactly these registered keys.
    pub fn matches(&self, keys: &SecretKeys<S::G>) -> bool {
        KeyUse::ALL
            .iter()
            .all(|u| self.key(*u).is_none_or(|k| k == keys.public(*u)))
    }
}

/// The positions in `registrations` of those whose proof does not verify, checked in one batch
/// (one multi-scalar multiplication, split over threads with the `parallel` feature; a failed
/// batch checks each proof on its own). The batching weights are a ChaCha20 stream keyed by a
/// hash of every (key, proof) in the batch, in roster order: whoever writes a bad registration fixes
/// it before the weights exist, so weights that cancel its error are as unlikely as with weights
/// drawn at random, and validation stays a deterministic function of the configuration.
fn invalid_registrations<G: verdict_group::Group>(
    registrations: &[(Party, KeyUse, &Registered<G>)],
    nonce: &[u8; 32],
) -> std::collections::BTreeSet<usize> {
    use rand_core::SeedableRng;

    let items = verdict_group::par::map(registrations, |(party, use_, r)| {
        r.registration
            .batch_item(&r.key, &registration_context(*party, *use_, nonce))
    });
    let mut batch = verdict_nizk::BatchVerifier::<G>::with_capacity(items.len());
    for item in items {
        batch.add_item(item);
    }
    let mut h = blake3::Hasher::new_derive_key("verdict-proto/registration-batch-weights/v1");
    h.update(nonce);
    h.update(&(registrations.len() as u64).to_le_bytes());
    // Member and use are given by the position (roster order, then use order).
    for (_, _, r) in registrations {
        h.update(&r.key.to_bytes());
        h.update(&r.registration.to_bytes());
    }
    let mut weights = rand_chacha::ChaCha20Rng::from_seed(*h.finalize().as_bytes());
    match batch.verify(&mut weights) {
        Ok(()) => Default::default(),
        Err(e) => e.invalid.into_iter().collect(),
    }
}

fn registration_context(member: Party, use_: KeyUse, nonce: &[u8; 32]) -> Context {
    let (role, index): (&[u8], u32) = match member {
        Party::Client(c) => (b"client", c.0),
        Party::Server(s) => (b"server", s.0),
    };
    Context::new(REGISTRATION_PURPOSE, *nonce)
        .with_sender(index)
        .with_field(b"role", role)
        .with_field(b"use", use_.label())
}

/// The public configuration every participant starts from.
pub struct GroupConfig<S: ProtoSuite> {
    /// The policy.
    pub policy: Policy,
    /// A fresh random nonce chosen by whoever convenes the group (makes session ids unique).
    pub nonce: [u8; 32],
    /// Servers, in roster order.
    pub servers: Vec<Member<S>>,
    /// Clients, in roster order.
    pub clients: Vec<Member<S>>,
    /// Each client's upstream server.
    pub upstream: Vec<ServerId>,
}

impl<S: ProtoSuite> GroupConfig<S> {
    /// Validates the configuration (registrations, sizes, policy) and derives the session id.
    pub fn validate(&self) -> Result<SessionId, ConfigError> {
        self.policy.validate()?;
        let verifiable = !self.policy.mode.is_hybrid();
        let signature = verdict_nizk::Signature::<S::G>::ENCODED_LEN;
        if verifiable
            && (self.policy.default_len as usize) < crate::slot::SLOT_HEADER_LEN + signature
        {
            return Err(ConfigError::Policy(
                "default_len cannot hold the slot header and the owner's pseudonym signature",
            ));
        }
        if self.servers.is_empty() {
            return Err(ConfigError::GroupSize("at least one server"));
        }
        if self.clients.len() < 2 {
            return Err(ConfigError::GroupSize(
                "at least two clients (an anonymity set of one is no anonymity)",
            ));
        }
        if u32::try_from(self.servers.len()).is_err() || u32::try_from(self.clients.len()).is_err()
        {
            return Err(ConfigError::GroupSize("too many members"));
        }
        if self.upstream.len() != self.clients.len() {
            return Err(ConfigError::GroupSize("one upstream server per client"));
        }
        for (i, up) in self.upstream.iter().enumerate() {
            if up.index() >= self.servers.len() {
                return Err(ConfigError::BadUpstream {
                    client: ClientId(i as u32),
                });
            }
        }
        if S::EAGER_ONLY && self.policy.mode.verification() == crate::policy::Verification::Lazy {
            return Err(ConfigError::EagerOnlySuite {
                suite: S::ID.to_string(),
            });
        }
        // Every registration's proof is checked in one batch, in parallel with the `parallel`
        // feature, before the loop below reports the first fault in roster order exactly as a
        // loop checking them one by one would.
        let registrations = self.registrations();
        let invalid = invalid_registrations(&registrations, &self.nonce);
        let mut seen = std::collections::BTreeSet::new();
        let mut next = 0;
        for (party, m) in self.members() {
            if matches!(party, Party::Server(_)) != m.shuffle.is_some() {
                return Err(ConfigError::BadRegistration { member: party });
            }
            for use_ in KeyUse::ALL {
                let Some(r) = m.registered(use_) else {
                    continue;
                };
                if invalid.contains(&next) {
                    return Err(ConfigError::BadRegistration { member: party });
                }
                next += 1;
                // One key, one use, one member: a key registered twice would let one use's
                // interface act on another's secret (or be a copy of someone else's key).
                if !seen.insert(r.key.to_bytes()) {
                    return Err(ConfigError::DuplicateKey { member: party });
                }
            }
        }
        Ok(self.session_id())
    }

    /// Every member in roster order: servers, then clients.
    fn members(&self) -> impl Iterator<Item = (Party, &Member<S>)> {
        let servers = self.servers.iter().enumerate();
        let clients = self.clients.iter().enumerate();
        servers
            .map(|(j, m)| (Party::Server(ServerId(j as u32)), m))
            .chain(clients.map(|(i, m)| (Party::Client(ClientId(i as u32)), m)))
    }

    /// Every registration with its member and use, in roster order and then [`KeyUse::ALL`]
    /// order: the order [`GroupConfig::validate`] reports faults in.
    fn registrations(&self) -> Vec<(Party, KeyUse, &Registered<S::G>)> {
        self.members()
            .flat_map(|(party, m)| {
                KeyUse::ALL
                    .iter()
                    .filter_map(move |&u| m.registered(u).map(|r| (party, u, r)))
            })
            .collect()
    }

    /// The session id: a hash of suite, policy, nonce, every key and every upstream link.
    pub fn session_id(&self) -> SessionId {
        let mut w = Writer::new();
        w.bytes(&S::ID.to_bytes())
            .bytes(&self.policy.to_bytes())
            .raw(&self.nonce);
        let keys = |w: &mut Writer, m: &Member<S>| {
            for use_ in KeyUse::ALL {
                match m.key(use_) {
                    Some(k) => w.u8(1).bytes(&k.to_bytes()),
                    None => w.u8(0),
                };
            }
        };
        w.count(self.servers.len());
        for m in &self.servers {
            keys(&mut w, m);
        }
        w.count(self.clients.len());
        for (m, up) in self.clients.iter().zip(&self.upstream) {
            keys(&mut w, m);
            w.u32(up.0);
        }
        SessionId(blake3::derive_key(SESSION_CONTEXT, &w.finish()))
    }

    /// Decodes a message received from `from` and checks that `from` is its signer, that it is
    /// for `session`, and its signature. Everything a peer sends goes through here first (a
    /// server's clients' submissions through `open_unsigned`, their signatures then checked in
    /// a batch), and only here is a peer's signature on a message it sent us checked: what comes out keeps `raw`, the bytes as received (shared, not copied), as the
    /// evidence of what `from` said.
    pub fn open(
        &self,
        session: &SessionId,
        from: Party,
        raw: impl Into<SharedBytes>,
    ) -> Result<Received<S::G>, MessageError> {
        let msg = self.open_unsigned(session, from, raw)?;
        self.check_signature(&msg)?;
        Ok(msg)
    }

    /// [`GroupConfig::open`] but for the signature: the caller must pass the message through
    /// [`GroupConfig::check_signature`] (or check it in a batch) before acting on it. A server
    /// does so for its clients' submissions of the window it is collecting, which it checks in
    /// one batch before the window may close (`server/round/submission.rs`).
    pub(crate) fn open_unsigned(
        &self,
        session: &SessionId,
        from: Party,
        raw: impl Into<SharedBytes>,
    ) -> Result<Received<S::G>, MessageError> {
        let msg = Received::<S::G>::parse(raw.into())
            .map_err(|source| MessageError::Malformed { from, source })?;
        let h = msg.header();
        let wrong_sender = MessageError::WrongSender {
            from,
            claimed: h.sender,
        };
        if h.sender != from {
            return Err(wrong_sender);
        }
        if h.session != session.0 {
            return Err(MessageError::WrongSession { from });
        }
        if self.key_of(from).is_none() {
            return Err(wrong_sender);
        }
        Ok(msg)
    }

    /// Checks the signature of a message [`GroupConfig::open_unsigned`] let through.
    pub(crate) fn check_signature(&self, msg: &Received<S::G>) -> Result<(), MessageError> {
        let from = msg.header().sender;
        let key = self.key_of(from).ok_or(MessageError::WrongSender {
            from,
            claimed: from,
        })?;
        #[cfg(test)]
        signature_checks::count();
        msg.signed()
            .verify(key)
            .map_err(|source| MessageError::Malformed { from, source })
    }

    /// The upstream server of `client` (`None` outside the roster).
    pub fn upstream_of(&self, client: ClientId) -> Option<ServerId> {
        self.upstream.get(client.index()).copied()
    }

    /// The clients whose upstream is `server`.
    pub fn clients_of(&self, server: ServerId) -> Vec<ClientId> {
        self.upstream
            .iter()
            .enumerate()
            .filter(|(_, up)| **up == server)
            .map(|(i, _)| ClientId(i as u32))
            .collect()
    }

    /// The envelope-signing key of `party`, if in the roster.
    pub fn key_of(&self, party: Party) -> Option<&VerifyingKey<S::G>> {
        self.member(party).map(|m| &m.signing.key)
    }

    /// The roster entry of `party`.
    pub fn member(&self, party: Party) -> Option<&Member<S>> {
        match party {
            Party::Client(c) => self.clients.get(c.index()),
            Party::Server(s) => self.servers.get(s.index()),
        }
    }

    /// Every server's key for `use_`, in roster order (servers register every use).
    pub(crate) fn server_keys(&self, use_: KeyUse) -> Vec<VerifyingKey<S::G>> {
        self.servers
            .iter()
            .filter_map(|m| m.key(use_).cloned())
            .collect()
    }

    /// Every client's key for `use_` (not the shuffle key, which clients do not have).
    pub(crate) fn client_keys(&self, use_: KeyUse) -> Vec<VerifyingKey<S::G>> {
        self.clients
            .iter()
            .filter_map(|m| m.key(use_).cloned())
            .collect()
    }

    /// Number of servers.
    pub fn num_servers(&self) -> usize {
        self.servers.len()
    }

    /// Number of clients.
    pub fn num_clients(&self) -> usize {
        self.clients.len()
    }
}

/// Builds a whole group with fresh keys: the configuration plus every member's secret keys
/// (tests, benchmarks, the simulator and the demo). Client `i`'s upstream is server `i mod M`.
#[allow(clippy::type_complexity)]
pub fn generate_group<S: ProtoSuite, R: RngCore + CryptoRng + ?Sized>(
    policy: Policy,
    servers: usize,
    clients: usize,
    rng: &mut R,
) -> (GroupConfig<S>, Vec<SecretKeys<S::G>>, Vec<SecretKeys<S::G>>) {
    let mut nonce = [0u8; 32];
    rng.fill_bytes(&mut nonce);
    let server_keys: Vec<_> = (0..servers).map(|_| SecretKeys::generate(rng)).collect();
    let client_keys: Vec<_> = (0..clients).map(|_| SecretKeys::generate(rng)).collect();
    let config = GroupConfig {
        policy,
        nonce,
        servers: server_keys
            .iter()
            .enumerate()
            .map(|(j, k)| Member::register(k, Party::Server(ServerId(j as u32)), &nonce, rng))
            .collect(),
        clients: client_keys
            .iter()
            .enumerate()
            .map(|(i, k)| Member::register(k, Party::Client(ClientId(i as u32)), &nonce, rng))
            .collect(),
        upstream: (0..clients)
            .map(|i| ServerId((i % servers.max(1)) as u32))
            .collect(),
    };
    (config, server_keys, client_keys)
}

/// Test-only count of the message signatures checked on this thread, one by one
/// ([`GroupConfig::check_signature`]) or in a batch (a server's held submissions): a message
/// must be verified once, however long it waits for its step.
#[cfg(test)]
pub(crate) mod signature_checks {
    use std::cell::Cell;

    thread_local! {
        static CHECKED: Cell<usize> = const { Cell::new(0) };
        static BATCHED: Cell<usize> = const { Cell::new(0) };
    }

    pub(crate) fn count() {
        CHECKED.with(|c| c.set(c.get() + 1));
    }

    /// Counts `n` signatures checked in one batch.
    pub(crate) fn count_batch(n: usize) {
        CHECKED.with(|c| c.set(c.get() + n));
        BATCHED.with(|c| c.set(c.get() + n));
    }

    /// Signatures checked on this thread so far.
    pub(crate) fn checked() -> usize {
        CHECKED.with(Cell::get)
    }

    /// Of those, the ones checked in a batch.
    pub(crate) fn batched() -> usize {
        BATCHED.with(Cell::get)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;
    use verdict_dcnet::HashingGenerator;
    use verdict_group::Ristretto255;

    use super::*;

    type Hg = HashingGenerator<Ristretto255>;

    fn client(i: u32) -> Party {
        Party::Client(ClientId(i))
    }

    /// The registrations are checked in one batch, but the faults come out as a loop checking
    /// them one by one in roster order would report them: the first bad registration, or the
    /// first key seen twice, whichever comes first; one bad proof among many is found; and the
    /// answer does not depend on the thread count.
    #[test]
    fn registration_faults_are_reported_in_roster_order() {
        let mut rng = ChaCha20Rng::seed_from_u64(7);
        let (config, _, client_keys) = generate_group::<Hg, _>(Policy::default(), 3, 40, &mut rng);
        let nonce = config.nonce;
        // Client 37's and 38's XOR registrations swapped: both invalid, 37 is named.
        let mut swapped = config.clone();
        let xor37 = swapped.clients[37].xor.registration.clone();
        swapped.clients[37].xor.registration = swapped.clients[38].xor.registration.clone();
        swapped.clients[38].xor.registration = xor37;
        // Client 20 registers client 5's signing key, knowing its secret (a valid proof): a
        // duplicate, found before 37's bad registration.
        let mut duplicated = swapped.clone();
        duplicated.clients[20].dcnet = Registered::prove(
            client_keys[5].key(KeyUse::Signing),
            client(20),
            KeyUse::DcNet,
            &nonce,
            &mut rng,
        );
        // Only client 10's first registration is bad (not its predecessor's last).
        let mut first = config.clone();
        first.clients[10].signing.registration = first.clients[10].dcnet.registration.clone();
        // Only the very last registration of the roster is bad.
        let mut last = config.clone();
        last.clients[39].xor.registration = last.clients[39].dcnet.registration.clone();
        for threads in [1, 2] {
            let validate = |c: &GroupConfig<Hg>| {
                verdict_group::par::with_threads(threads, || c.validate()).unwrap()
            };
            assert!(validate(&config).is_ok());
            assert_eq!(
                validate(&swapped),
                Err(ConfigError::BadRegistration { member: client(37) })
            );
            assert_eq!(
                validate(&duplicated),
                Err(ConfigError::DuplicateKey { member: client(20) })
            );
            assert_eq!(
                validate(&first),
                Err(ConfigError::BadRegistration { member: client(10) })
            );
            assert_eq!(
                validate(&last),
                Err(ConfigError::BadRegistration { member: client(39) })
            );
        }
    }
}
