//! The pseudonym-key shuffle as a state machine over every step's messages.

use std::collections::BTreeSet;

use rand_core::{CryptoRng, RngCore};
use verdict_group::Group;
use verdict_nizk::Encoded;

use crate::elgamal::{Ciphertext, CiphertextList, KeyPair};
use crate::error::KeyShuffleError;

use super::params::KeyShuffleParams;
use super::steps::{
    DecryptionStep, ShuffleStep, open_slots, server_decrypt, server_shuffle,
    verify_decryption_with, verify_shuffle_step, x_components,
};
use super::submission::{Submission, verify_submission};

/// Where a [`KeyShuffle`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Phase {
    /// Collecting client submissions.
    Submissions,
    /// Waiting for server `server`'s shuffle step.
    Shuffle {
        /// The next server to shuffle.
        server: usize,
    },
    /// Collecting decryption shares.
    Decryption,
    /// The slots are assigned.
    Done,
}

/// The pseudonym-key shuffle as a state machine: feed it every message, in order; it verifies
/// each and tells who failed. Servers also use it to produce their own messages.
#[derive(Debug, Clone)]
pub struct KeyShuffle<G: Group> {
    params: KeyShuffleParams<G>,
    submissions: Vec<Option<Ciphertext<G>>>,
    /// The encodings of the accepted ciphertexts (see `Submission::encoding`).
    accepted: BTreeSet<Box<[u8]>>,
    clients: Vec<u32>,
    lists: Vec<CiphertextList<G>>,
    x_final: Vec<Encoded<G>>,
    decryptions: Vec<Option<DecryptionStep<G>>>,
    slots: Option<Vec<G>>,
    /// `slots` with their encodings (computed in one batch when the slots open).
    slot_keys: Option<Vec<Encoded<G>>>,
    phase: Phase,
}

impl<G: Group> KeyShuffle<G> {
    /// A fresh shuffle for `params`.
    pub fn new(params: KeyShuffleParams<G>) -> Self {
        let m = params.num_servers();
        Self {
            submissions: vec![None; params.num_clients],
            accepted: BTreeSet::new(),
            decryptions: vec![None; m],
            params,
            clients: Vec::new(),
            lists: Vec::new(),
            x_final: Vec::new(),
            slots: None,
            slot_keys: None,
            phase: Phase::Submissions,
        }
    }

    /// The current phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The parameters.
    pub fn params(&self) -> &KeyShuffleParams<G> {
        &self.params
    }

    /// Accepts client `client`'s submission bytes (during [`Phase::Submissions`]).
    pub fn receive_submission(&mut self, client: u32, bytes: &[u8]) -> Result<(), KeyShuffleError> {
        let sub = self.check_submission(client, bytes)?;
        self.accept_submission(client, sub)
    }

    /// The stateless part of [`KeyShuffle::receive_submission`]: the phase, then decoding and
    /// verifying the proof. Callers holding many submissions check them in parallel (it takes
    /// `&self`) and then accept them in order with [`KeyShuffle::accept_submission`], which
    /// gives the same outcome as receiving them one by one.
    pub fn check_submission(
        &self,
        client: u32,
        bytes: &[u8],
    ) -> Result<Submission<G>, KeyShuffleError> {
        self.check_phase()?;
        let sub = Submission::from_bytes(bytes).map_err(|source| KeyShuffleError::Malformed {
            party: format!("client {client}"),
            source,
        })?;
        verify_submission(&self.params, client, &sub)?;
        Ok(sub)
    }

    fn check_phase(&self) -> Result<(), KeyShuffleError> {
        if self.phase != Phase::Submissions {
            return Err(KeyShuffleError::OutOfOrder(
                "submission after the window closed",
            ));
        }
        Ok(())
    }

    /// Accepts a submission that [`KeyShuffle::check_submission`] returned for `client`
    /// (refused if the window closed meanwhile, the client already submitted or the
    /// ciphertext is someone else's).
    pub fn accept_submission(
        &mut self,
        client: u32,
        sub: Submission<G>,
    ) -> Result<(), KeyShuffleError> {
        self.check_phase()?;
        let dup = self.accepted.contains(&sub.encoding);
        match self.submissions.get_mut(client as usize) {
            Some(slot @ None) if !dup => {
                *slot = Some(sub.ciphertext);
                self.accepted.insert(sub.encoding);
                Ok(())
            }
            _ => Err(KeyShuffleError::DuplicateSubmission {
                client: client as usize,
            }),
        }
    }

    /// Closes the submission window: the clients that submitted (in roster order) take part.
    pub fn close_submissions(&mut self) -> Result<(), KeyShuffleError> {
        if self.phase != Phase::Submissions {
            return Err(KeyShuffleError::OutOfOrder("submissions already closed"));
        }
        let mut cts = Vec::new();
        for (i, s) in self.submissions.iter().enumerate() {
            if let Some(c) = s {
                self.clients.push(i as u32);
                cts.push(*c);
            }
        }
        if cts.len() < 2 {
            return Err(KeyShuffleError::Params("fewer than 2 clients submitted"));
        }
        self.lists.push(CiphertextList::new(cts));
        self.phase = Phase::Shuffle { server: 0 };
        Ok(())
    }

    /// The clients whose submissions entered the shuffle (after closing).
    pub fn participants(&self) -> &[u32] {
        &self.clients
    }

    /// The current list: the input of the next shuffle, or the final list once all shuffled.
    pub fn current_list(&self) -> Option<&CiphertextList<G>> {
        self.lists.last()
    }

    /// Server side: this server's shuffle step, if it is its turn. Feed the returned bytes to
    /// [`KeyShuffle::receive_shuffle`] like everybody else.
    pub fn make_shuffle<R: RngCore + CryptoRng + ?Sized>(
        &self,
        server: u32,
        rng: &mut R,
    ) -> Result<Vec<u8>, KeyShuffleError> {
        let (Phase::Shuffle { server: next }, Some(list)) = (self.phase, self.lists.last()) else {
            return Err(KeyShuffleError::OutOfOrder("not shuffling"));
        };
        if next != server as usize {
            return Err(KeyShuffleError::OutOfOrder("not this server's turn"));
        }
        Ok(server_shuffle(&self.params, server, list, rng)?.to_bytes())
    }

    /// Accepts server `server`'s shuffle step (it must be that server's turn).
    pub fn receive_shuffle(&mut self, server: u32, bytes: &[u8]) -> Result<(), KeyShuffleError> {
        let (Phase::Shuffle { server: next }, Some(list)) = (self.phase, self.lists.last()) else {
            return Err(KeyShuffleError::OutOfOrder("not shuffling"));
        };
        if next != server as usize {
            return Err(KeyShuffleError::OutOfOrder("not this server's turn"));
        }
        let step = ShuffleStep::from_bytes(bytes, list.len()).map_err(|source| {
            KeyShuffleError::Malformed {
                party: format!("server {server}"),
                source,
            }
        })?;
        verify_shuffle_step(&self.params, server, list, &step)?;
        self.lists.push(step.outputs);
        if next + 1 == self.params.num_servers() {
            self.phase = Phase::Decryption;
            if let Some(last) = self.lists.last() {
                self.x_final = x_components(last);
            }
        } else {
            self.phase = Phase::Shuffle { server: next + 1 };
        }
        Ok(())
    }

    /// Server side: this server's decryption shares of the final list.
    pub fn make_decryption<R: RngCore + CryptoRng + ?Sized>(
        &self,
        server: u32,
        key: &KeyPair<G>,
        rng: &mut R,
    ) -> Result<Vec<u8>, KeyShuffleError> {
        let (Phase::Decryption, Some(list)) = (self.phase, self.lists.last()) else {
            return Err(KeyShuffleError::OutOfOrder("not decrypting"));
        };
        Ok(server_decrypt(&self.params, server, key, list, rng)?.to_bytes())
    }

    /// Accepts server `server`'s decryption shares (any order). After the last one the slots
    /// are assigned.
    pub fn receive_decryption(&mut self, server: u32, bytes: &[u8]) -> Result<(), KeyShuffleError> {
        let (Phase::Decryption, Some(list)) = (self.phase, self.lists.last()) else {
            return Err(KeyShuffleError::OutOfOrder("not decrypting"));
        };
        let step = DecryptionStep::from_bytes(bytes, list.len()).map_err(|source| {
            KeyShuffleError::Malformed {
                party: format!("server {server}"),
                source,
            }
        })?;
        verify_decryption_with(&self.params, server, &self.x_final, &step)?;
        match self.decryptions.get_mut(server as usize) {
            Some(slot @ None) => *slot = Some(step),
            _ => return Err(KeyShuffleError::OutOfOrder("duplicate decryption shares")),
        }
        if self.decryptions.iter().all(Option::is_some) {
            let steps: Vec<DecryptionStep<G>> =
                self.decryptions.iter().flatten().cloned().collect();
            let keys = open_slots(list, &steps);
            self.slots = Some(keys.iter().map(|k| *k.point()).collect());
            self.slot_keys = Some(keys);
            self.phase = Phase::Done;
        }
        Ok(())
    }

    /// The pseudonym keys in slot order, once [`Phase::Done`]: every submitted key except the
    /// identity and keys submitted more than once. Nothing stops a client from submitting those
    /// (with valid proofs); they cost only the submitters' own slots, so there may be fewer
    /// slots than participants.
    pub fn slots(&self) -> Option<&[G]> {
        self.slots.as_deref()
    }

    /// [`Self::slots`] with their encodings, once [`Phase::Done`] (what a pseudonym roster is
    /// built from, without encoding every key again).
    pub fn slot_keys(&self) -> Option<&[Encoded<G>]> {
        self.slot_keys.as_deref()
    }

    /// The slot of pseudonym key `key`, once [`Phase::Done`].
    pub fn slot_of(&self, key: &G) -> Option<usize> {
        self.slots.as_ref()?.iter().position(|k| k == key)
    }
}
