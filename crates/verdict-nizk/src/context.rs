//! The context every proof is bound to.

use crate::transcript::Transcript;

/// What a proof is about, beyond its statement: purpose, session, round, slot, sender.
///
/// [`Context::transcript`] starts a transcript with `purpose` as protocol label and absorbs every
/// field, so a proof made for one context fails to verify in any other (this is the defence
/// against the 2013 prototype's replay of proofs across rounds and slots). **Callers must put
/// every fact the proof must be bound to in here** — in particular the round, the slot and the
/// sender whenever they exist — or add it with [`Context::with_field`].
///
/// Absent optional fields are encoded differently from every present value, so "no slot" and
/// "slot 0" are different contexts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Context {
    /// What the proof is for, e.g. `b"verdict/hashing-generator/client"`; the transcript's
    /// protocol label.
    pub purpose: &'static [u8],
    /// The session identifier (hash of roster, policy and nonce).
    pub session: [u8; 32],
    /// Round number, if the proof belongs to a round.
    pub round: Option<u64>,
    /// Slot index, if the proof belongs to a slot.
    pub slot: Option<u32>,
    /// Index of the participant that made the proof, if any.
    pub sender: Option<u32>,
    /// Further labeled fields, absorbed in order.
    pub fields: Vec<(&'static [u8], Vec<u8>)>,
}

impl Context {
    /// A context with only a purpose and a session id.
    pub fn new(purpose: &'static [u8], session: [u8; 32]) -> Self {
        Self {
            purpose,
            session,
            round: None,
            slot: None,
            sender: None,
            fields: Vec::new(),
        }
    }

    /// Sets the round.
    pub fn with_round(mut self, round: u64) -> Self {
        self.round = Some(round);
        self
    }

    /// Sets the slot.
    pub fn with_slot(mut self, slot: u32) -> Self {
        self.slot = Some(slot);
        self
    }

    /// Sets the sender.
    pub fn with_sender(mut self, sender: u32) -> Self {
        self.sender = Some(sender);
        self
    }

    /// Adds a labeled field (e.g. a role, an identity key hash).
    pub fn with_field(mut self, label: &'static [u8], value: &[u8]) -> Self {
        self.fields.push((label, value.to_vec()));
        self
    }

    /// Absorbs the context into `transcript`.
    pub fn append_to(&self, t: &mut Transcript) {
        t.append_message(b"ctx/purpose", self.purpose);
        t.append_message(b"ctx/session", &self.session);
        let opt64 = |v: Option<u64>| v.map(u64::to_le_bytes);
        t.append_message(
            b"ctx/round",
            opt64(self.round).as_ref().map_or(&[][..], |b| &b[..]),
        );
        let opt32 = |v: Option<u32>| v.map(u32::to_le_bytes);
        t.append_message(
            b"ctx/slot",
            opt32(self.slot).as_ref().map_or(&[][..], |b| &b[..]),
        );
        t.append_message(
            b"ctx/sender",
            opt32(self.sender).as_ref().map_or(&[][..], |b| &b[..]),
        );
        t.append_u64(b"ctx/fields", self.fields.len() as u64);
        for (label, value) in &self.fields {
            t.append_message(b"ctx/field-label", label);
            t.append_message(b"ctx/field-value", value);
        }
    }

    /// A fresh transcript (protocol label = `purpose`) with this context absorbed.
    pub fn transcript(&self) -> Transcript {
        let mut t = Transcript::new(self.purpose);
        self.append_to(&mut t);
        t
    }
}
