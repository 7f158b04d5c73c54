//! Session set-up: the pseudonym shuffle and the suite set-up, as a log that servers fill
//! message by message and clients replay from the transcript their upstream server forwards.
//! Either way every signature, submission proof, shuffle proof and decryption proof is checked
//! by the participant itself: no one trusts a server's word for the slot assignment.

use std::collections::BTreeMap;

use verdict_dcnet::{
    ClientId, DhReveal, Liar, Party, Roster, ServerId, Session, SessionId, SetupError,
};
use verdict_nizk::VerifyingKey;
use verdict_shuffle::{KeyShuffle, KeyShuffleParams, Phase};

use crate::config::GroupConfig;
use crate::error::SetupFailure;
use crate::keys::KeyUse;
use crate::suite::{ProtoSuite, SessionNets, XorOf};
use crate::wire::{Envelope, Kind, Received, SharedBytes, payloads};

/// A set-up failure and who caused it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SetupFault {
    pub culprits: Vec<Party>,
    pub failure: SetupFailure,
}

/// A client set-up message as listed by the inventory of the server it names (an empty
/// message stands for an undecodable inventory, where the listing stops).
type Listed<'a> = (Party, &'a [u8]);

fn fault(culprit: Party, failure: SetupFailure) -> SetupFault {
    SetupFault {
        culprits: vec![culprit],
        failure,
    }
}

/// A failure nobody is to blame for (parameters every participant agreed on).
fn nobody(failure: SetupFailure) -> SetupFault {
    SetupFault {
        culprits: Vec::new(),
        failure,
    }
}

/// Payload of [`Kind::ClientSetup`].
pub(crate) fn client_setup_payload(submission: &[u8], suite_setup: &[u8]) -> Vec<u8> {
    payloads::ClientSetup {
        submission,
        suite: suite_setup,
    }
    .to_bytes()
}

/// What set-up produces.
pub(crate) struct SetupOutcome<S: ProtoSuite> {
    pub pseudonyms: Vec<VerifyingKey<S::G>>,
    /// Clients absent at set-up; `client_setups` holds stand-ins for them.
    pub absent: Vec<ClientId>,
    pub client_setups: Vec<S::ClientSetup>,
    pub server_setups: Vec<S::ServerSetup>,
}

/// Disputed (client, server) pairs and the server's reveal for each, once received.
type Disputes<G> = BTreeMap<(ClientId, ServerId), Option<DhReveal<G>>>;

pub(crate) struct SetupLog<S: ProtoSuite> {
    session: SessionId,
    roster0: Roster<S>,
    xor0: Roster<XorOf<S>>,
    shuffle: KeyShuffle<S::G>,
    inventories: Vec<Option<Received<S::G>>>,
    client_setups: Vec<Option<S::ClientSetup>>,
    server_setups: Vec<Option<S::ServerSetup>>,
    steps: BTreeMap<u32, Received<S::G>>,
    applied_steps: Vec<Received<S::G>>,
    decryptions: BTreeMap<u32, Received<S::G>>,
    applied_decryptions: Vec<Received<S::G>>,
    /// Pairs whose set-up commitments disagree, with the server's reveal once it arrives.
    disputes: Option<Disputes<S::G>>,
    /// Clients absent at set-up (known once every inventory arrived), in order.
    absent: Vec<ClientId>,
}

impl<S: ProtoSuite> SetupLog<S> {
    pub fn new(config: &GroupConfig<S>, session: SessionId) -> Result<Self, SetupFault> {
        let params = KeyShuffleParams::new(
            session.0,
            config
                .server_keys(KeyUse::Shuffle)
                .iter()
                .map(|k| *k.point())
                .collect(),
            config.num_clients(),
        )
        .map_err(|e| nobody(SetupFailure::Shuffle(e)))?;
        let roster0 = Roster::new(
            session,
            config.server_keys(KeyUse::DcNet),
            config.client_keys(KeyUse::DcNet),
            Vec::new(),
        )
        .map_err(|e| nobody(SetupFailure::Parameters(e)))?;
        let xor0 = Roster::new(
            session,
            config.server_keys(KeyUse::Xor),
            config.client_keys(KeyUse::Xor),
            Vec::new(),
        )
        .map_err(|e| nobody(SetupFailure::Parameters(e)))?;
        Ok(Self {
            session,
            roster0,
            xor0,
            shuffle: KeyShuffle::new(params),
            inventories: vec![None; config.num_servers()],
            client_setups: vec![None; config.num_clients()],
            server_setups: vec![None; config.num_servers()],
            steps: BTreeMap::new(),
            applied_steps: Vec::new(),
            decryptions: BTreeMap::new(),
            applied_decryptions: Vec::new(),
            disputes: None,
            absent: Vec::new(),
        })
    }

    /// The roster without pseudonym keys (what suite set-up needs).
    pub fn roster0(&self) -> &Roster<S> {
        &self.roster0
    }

    /// The XOR DC-net's roster without pseudonym keys (hybrid mode).
    pub fn xor0(&self) -> &Roster<XorOf<S>> {
        &self.xor0
    }

    pub fn shuffle(&self) -> &KeyShuffle<S::G> {
        &self.shuffle
    }

    pub fn shuffle_params(&self) -> &KeyShuffleParams<S::G> {
        self.shuffle.params()
    }

    /// Adds an envelope (already signature-checked against its sender) of a set-up kind.
    pub fn add(&mut self, config: &GroupConfig<S>, env: Received<S::G>) -> Result<(), SetupFault> {
        let sender = env.header().sender;
        let Party::Server(j) = sender else {
            // The router only gives us servers' set-up messages.
            return Err(fault(sender, SetupFailure::BadInventory));
        };
        match env.header().kind {
            Kind::SetupInventory => {
                let slot = self
                    .inventories
                    .get_mut(j.index())
                    .ok_or_else(|| fault(sender, SetupFailure::BadInventory))?;
                if slot.is_some() {
                    // The same inventory again (a different one is caught as equivocation).
                    return Ok(());
                }
                let inventory = payloads::SetupInventory::decode(env.payload())
                    .map_err(|_| fault(sender, SetupFailure::BadInventory))?;
                let parsed = S::decode_server_setup(&self.roster0, inventory.suite)
                    .map_err(|_| fault(sender, SetupFailure::BadInventory))?;
                if let Some(s) = self.server_setups.get_mut(j.index()) {
                    *s = Some(parsed);
                }
                *slot = Some(env);
                if self.inventories.iter().all(Option::is_some) {
                    self.process_inventories(config)?;
                }
            }
            // Tracked steps: a second copy is the same message (a different one is
            // equivocation, caught before it gets here), so the first one stands.
            Kind::ShuffleStep => {
                self.steps.entry(j.0).or_insert(env);
            }
            Kind::Decryption => {
                self.decryptions.entry(j.0).or_insert(env);
            }
            Kind::Dispute => return self.add_dispute(j, &env),
            _ => return Err(fault(sender, SetupFailure::BadInventory)),
        }
        self.advance()
    }

    fn process_inventories(&mut self, config: &GroupConfig<S>) -> Result<(), SetupFault> {
        // Every client message is checked on its own first (signature, decoding, the
        // submission's proof: the bulk of a server's set-up work), in parallel with the
        // `parallel` feature; then, in inventory order, exactly as if each had been checked
        // on the spot: the first failure is the one reported, a repeated message is skipped.
        let mut listed: Vec<Listed<'_>> = Vec::new();
        for (j, inv) in self.inventories.iter().enumerate() {
            let server = Party::Server(ServerId(j as u32));
            let Some(inv) = inv else { continue };
            match payloads::SetupInventory::decode(inv.payload()) {
                Ok(inventory) => listed.extend(inventory.clients.into_iter().map(|b| (server, b))),
                Err(_) => {
                    listed.push((server, &[]));
                    break;
                }
            }
        }
        let (roster0, shuffle, session) = (&self.roster0, &self.shuffle, self.session.0);
        let checked = verdict_group::par::map(&listed, |&(server, bytes)| {
            let bad = || fault(server, SetupFailure::BadInventory);
            // Only a server can forward a malformed, forged or foreign client message.
            let (signed, payload) = Envelope::<S::G>::parse(bytes).map_err(|_| bad())?;
            let h = &signed.header;
            let (Party::Client(c), Kind::ClientSetup, true) =
                (h.sender, h.kind, h.session == session)
            else {
                return Err(bad());
            };
            let key = config.key_of(h.sender).ok_or_else(bad)?;
            signed.verify(key).map_err(|_| bad())?;
            let client = Party::Client(c);
            let decoded = payloads::ClientSetup::decode(payload)
                .map_err(|_| fault(client, SetupFailure::MalformedClientSetup))
                .and_then(|setup| {
                    let parsed = S::decode_client_setup(roster0, setup.suite)
                        .map_err(|_| fault(client, SetupFailure::MalformedClientSetup))?;
                    let sub = shuffle
                        .check_submission(c.0, setup.submission)
                        .map_err(|e| fault(client, SetupFailure::InvalidSubmission(e)))?;
                    Ok((parsed, sub))
                });
            Ok((c, decoded))
        });
        let mut seen: BTreeMap<u32, &[u8]> = BTreeMap::new();
        for ((_, bytes), checked) in listed.iter().zip(checked) {
            let (c, decoded) = checked?;
            if let Some(prev) = seen.get(&c.0) {
                if prev[..] == bytes[..] {
                    continue;
                }
                return Err(fault(Party::Client(c), SetupFailure::DoubleClientSetup));
            }
            let (parsed, sub) = decoded?;
            self.shuffle
                .accept_submission(c.0, sub)
                .map_err(|e| fault(Party::Client(c), SetupFailure::InvalidSubmission(e)))?;
            if let Some(s) = self.client_setups.get_mut(c.index()) {
                *s = Some(parsed);
            }
            seen.insert(c.0, bytes);
        }
        // Clients no inventory carries a set-up message of are absent: left out of the
        // session (the shuffle runs over the others, and every server excludes them from round
        // 0), and named by the transcript itself, which every participant replays. A client
        // that sent its set-up message to any honest server is present (every inventory's
        // client messages count, whoever forwards them).
        self.absent = (0..self.client_setups.len())
            .filter(|&i| self.client_setups.get(i).is_some_and(Option::is_none))
            .map(|i| ClientId(i as u32))
            .collect();
        if self.client_setups.len() - self.absent.len() < 2 {
            // No session without two clients to hide among: the convener restarts.
            return Err(SetupFault {
                culprits: self.absent.iter().map(|&c| Party::Client(c)).collect(),
                failure: SetupFailure::Absent,
            });
        }
        let server_setups: Vec<S::ServerSetup> =
            self.server_setups.iter().flatten().cloned().collect();
        for &c in &self.absent {
            if let Some(slot) = self.client_setups.get_mut(c.index()) {
                *slot = Some(S::absent_client_setup(c, &server_setups));
            }
        }
        // Cross-check the suite set-up now, before anyone spends time on the shuffle. The
        // clients' set-ups (a thousand clients' commitments) are lent to it, not cloned, and
        // put back.
        let (present, clients): (Vec<usize>, Vec<S::ClientSetup>) = self
            .client_setups
            .iter_mut()
            .enumerate()
            .filter_map(|(i, c)| Some((i, c.take()?)))
            .unzip();
        let combined = S::combine_setup(&self.roster0, &clients, &server_setups);
        for (i, c) in present.into_iter().zip(clients) {
            if let Some(slot) = self.client_setups.get_mut(i) {
                *slot = Some(c);
            }
        }
        match combined {
            Ok(_) => {}
            Err(SetupError::CommitmentMismatch { pairs }) => {
                // Each disputed pair is settled by its server's DLEQ-proven DH reveal.
                self.disputes = Some(pairs.into_iter().map(|p| (p, None)).collect());
                return Ok(());
            }
            Err(e @ SetupError::Malformed { culprit }) => {
                return Err(fault(culprit, SetupFailure::Suite(e)));
            }
            Err(e) => return Err(nobody(SetupFailure::Suite(e))),
        }
        self.shuffle
            .close_submissions()
            .map_err(|e| nobody(SetupFailure::Shuffle(e)))
    }

    /// The clients whose commitments with `server` are disputed (it must reveal for each).
    pub fn disputes_for(&self, server: ServerId) -> Vec<ClientId> {
        self.disputes
            .iter()
            .flatten()
            .filter(|((_, s), _)| *s == server)
            .map(|((c, _), _)| *c)
            .collect()
    }

    /// Whether some server's set-up inventory is still missing.
    pub fn awaiting_inventories(&self) -> bool {
        self.inventories.iter().any(Option::is_none)
    }

    /// The set-up step the log waits on and every server whose message of it is missing, in
    /// order (`None`: done, or failed).
    pub fn awaited_servers(&self) -> Option<(Kind, Vec<ServerId>)> {
        let servers = |f: &dyn Fn(u32) -> bool| -> Vec<ServerId> {
            (0..self.inventories.len() as u32)
                .filter(|j| f(*j))
                .map(ServerId)
                .collect()
        };
        let (kind, missing) = if self.awaiting_inventories() {
            (
                Kind::SetupInventory,
                servers(&|j| {
                    self.inventories
                        .get(j as usize)
                        .is_some_and(Option::is_none)
                }),
            )
        } else if let Some(disputes) = &self.disputes {
            let open: std::collections::BTreeSet<ServerId> = disputes
                .iter()
                .filter(|(_, reveal)| reveal.is_none())
                .map(|((_, s), _)| *s)
                .collect();
            (Kind::Dispute, open.into_iter().collect())
        } else {
            match self.shuffle.phase() {
                Phase::Shuffle { server } => (Kind::ShuffleStep, vec![ServerId(server as u32)]),
                Phase::Decryption => (
                    Kind::Decryption,
                    servers(&|j| {
                        let applied = self
                            .applied_decryptions
                            .iter()
                            .any(|e| e.header().sender == Party::Server(ServerId(j)));
                        !applied && !self.decryptions.contains_key(&j)
                    }),
                ),
                _ => return None,
            }
        };
        (!missing.is_empty()).then_some((kind, missing))
    }

    /// Whether set-up is stuck on a commitment dispute.
    pub fn is_disputed(&self) -> bool {
        self.disputes.is_some()
    }

    /// A server's dispute reveals; once every disputed pair is revealed, names the liars
    /// (set-up then fails: the convener restarts without them).
    fn add_dispute(&mut self, j: ServerId, env: &Received<S::G>) -> Result<(), SetupFault> {
        let sender = Party::Server(j);
        let Some(disputes) = self.disputes.as_mut() else {
            return Err(fault(sender, SetupFailure::BadDispute));
        };
        let bad = || fault(sender, SetupFailure::BadDispute);
        let list = payloads::ByteList::decode(env.payload()).map_err(|_| bad())?;
        for bytes in list.0 {
            let reveal = DhReveal::<S::G>::from_bytes(bytes).map_err(|_| bad())?;
            if reveal.prover() != sender {
                return Err(bad());
            }
            match disputes.get_mut(&(reveal.client(), j)) {
                Some(slot @ None) => *slot = Some(reveal),
                Some(Some(prev)) if *prev == reveal => {}
                _ => return Err(bad()),
            }
        }
        if disputes.values().any(Option::is_none) {
            return Ok(());
        }
        let mut liars = Vec::new();
        for ((c, s), reveal) in disputes.iter() {
            let (Some(reveal), Some(Some(cs)), Some(Some(ss))) = (
                reveal,
                self.client_setups.get(c.index()),
                self.server_setups.get(s.index()),
            ) else {
                continue;
            };
            match S::resolve_dispute(&self.roster0, cs, ss, reveal) {
                Some(Liar::Client(c)) => liars.push(Party::Client(c)),
                Some(Liar::Server(s)) => liars.push(Party::Server(s)),
                Some(Liar::Both(c, s)) => {
                    liars.push(Party::Client(c));
                    liars.push(Party::Server(s));
                }
                // A reveal that settles nothing: its server did not do its part.
                _ => liars.push(Party::Server(*s)),
            }
        }
        liars.sort_unstable();
        liars.dedup();
        Err(SetupFault {
            culprits: liars,
            failure: SetupFailure::Disputed,
        })
    }

    /// Applies buffered shuffle steps and decryptions in protocol order.
    fn advance(&mut self) -> Result<(), SetupFault> {
        while let Phase::Shuffle { server } = self.shuffle.phase() {
            let Some(env) = self.steps.remove(&(server as u32)) else {
                break;
            };
            let culprit = Party::Server(ServerId(server as u32));
            self.shuffle
                .receive_shuffle(server as u32, env.payload())
                .map_err(|e| fault(culprit, SetupFailure::InvalidShuffle(e)))?;
            self.applied_steps.push(env);
        }
        if self.shuffle.phase() == Phase::Decryption {
            let pending = core::mem::take(&mut self.decryptions);
            for (j, env) in pending {
                let culprit = Party::Server(ServerId(j));
                self.shuffle
                    .receive_decryption(j, env.payload())
                    .map_err(|e| fault(culprit, SetupFailure::InvalidDecryption(e)))?;
                self.applied_decryptions.push(env);
            }
        }
        Ok(())
    }

    /// The outcome, once the shuffle is done.
    pub fn outcome(&self) -> Option<SetupOutcome<S>> {
        // The keys arrive encoded (one batch when the slots opened): no second encoding.
        let pseudonyms = self
            .shuffle
            .slot_keys()?
            .iter()
            .map(|k| VerifyingKey::from_encoded(k.clone()))
            .collect::<Option<Vec<_>>>()?;
        Some(SetupOutcome {
            pseudonyms,
            absent: self.absent.clone(),
            // A thousand clients' set-ups: cloned in parallel with the `parallel` feature.
            client_setups: verdict_group::par::map(&self.client_setups, Clone::clone)
                .into_iter()
                .flatten()
                .collect(),
            server_setups: self.server_setups.iter().flatten().cloned().collect(),
        })
    }

    /// Every set-up envelope, for clients to replay: inventories, then shuffle steps in order,
    /// then decryptions.
    /// Each is the bytes its signer sent.
    pub fn transcript(&self) -> Vec<SharedBytes> {
        self.inventories
            .iter()
            .flatten()
            .chain(&self.applied_steps)
            .chain(&self.applied_decryptions)
            .map(|m| m.raw().clone())
            .collect()
    }
}

/// The XOR suite's roster (its own keys, see [`crate::keys`]) with the session's pseudonyms.
pub(crate) fn xor_roster<S: ProtoSuite>(
    xor0: &Roster<XorOf<S>>,
    pseudonyms: Vec<verdict_nizk::VerifyingKey<S::G>>,
) -> Result<Roster<XorOf<S>>, verdict_dcnet::DcError> {
    Roster::new(
        *xor0.session(),
        xor0.servers().to_vec(),
        xor0.clients().to_vec(),
        pseudonyms,
    )
}

/// Builds the DC-net sessions after set-up.
pub(crate) fn build_nets<S: ProtoSuite>(
    roster0: &Roster<S>,
    xor0: &Roster<XorOf<S>>,
    pseudonyms: Vec<verdict_nizk::VerifyingKey<S::G>>,
    client_setups: &[S::ClientSetup],
    server_setups: &[S::ServerSetup],
    hybrid: bool,
) -> Result<SessionNets<S>, SetupFault> {
    // The suite set-up was cross-checked before the shuffle; a failure here is reported as
    // itself, naming whom the suite names.
    let blame_setup = |e: SetupError| {
        let culprits = match &e {
            SetupError::Malformed { culprit } => vec![*culprit],
            SetupError::CommitmentMismatch { pairs } => pairs
                .iter()
                .flat_map(|(c, s)| [Party::Client(*c), Party::Server(*s)])
                .collect(),
            _ => Vec::new(),
        };
        SetupFault {
            culprits,
            failure: SetupFailure::Suite(e),
        }
    };
    let roster = Roster::<S>::new(
        *roster0.session(),
        roster0.servers().to_vec(),
        roster0.clients().to_vec(),
        pseudonyms.clone(),
    )
    .map_err(|e| nobody(SetupFailure::Parameters(e)))?;
    let ver = Session::establish(roster, client_setups, server_setups).map_err(blame_setup)?;
    let xor = if hybrid {
        let roster =
            xor_roster::<S>(xor0, pseudonyms).map_err(|e| nobody(SetupFailure::Parameters(e)))?;
        let n = roster.num_clients();
        let m = roster.num_servers();
        Some(Session::establish(roster, &vec![(); n], &vec![(); m]).map_err(blame_setup)?)
    } else {
        None
    };
    Ok(SessionNets { ver, xor })
}
