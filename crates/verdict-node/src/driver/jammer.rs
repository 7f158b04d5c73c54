//! A jamming client, for demonstrations and tests of accountability (`verdict local
//! --jammer K`, or the hidden `verdict client --jam-from-round R`).
//!
//! From a given round on, it XORs a pattern of its own into every XOR slot of its signed
//! submissions (re-signing them: the envelope is still its own, so nothing but the DC-net
//! output betrays it). The owners of the corrupted slots accuse anonymously through their
//! verifiable slots, the servers' blame traces the pad bits to this client, and its exclusion
//! is certified. It changes nothing the protocol trusts: any member can run a modified client,
//! and this one is what hybrid-mode blame exists to catch.

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::Party;
use verdict_nizk::SigningKey;
use verdict_proto::slot::SLOT_HEADER_LEN;
use verdict_proto::wire::{Envelope, Header, Kind, Reader, Writer, write_byte_list};
use verdict_proto::{Client, ProtoSuite, SlotKind};

/// Jams every XOR slot from round `from` on.
#[derive(Clone, Copy, Debug)]
pub struct Jammer {
    /// The first round jammed.
    pub from: u64,
}

impl Jammer {
    /// The transmission to send instead of `bytes` (unchanged unless it is a submission of a
    /// jammed round).
    pub fn rewrite<S: ProtoSuite, R: RngCore + CryptoRng, Q: RngCore + CryptoRng>(
        &self,
        client: &Client<S, R>,
        key: &SigningKey<S::G>,
        bytes: &[u8],
        rng: &mut Q,
    ) -> Option<Vec<u8>> {
        let h = Header::from_prefix(bytes).ok()?;
        if h.kind != Kind::Submission || h.round < self.from {
            return None;
        }
        let env = Envelope::<S::G>::from_bytes(bytes).ok()?;
        let mut list = Reader::new(&env.payload).byte_list().ok()?;
        let open = client.submitted_slots(h.round);
        let me: Party = h.sender;
        let mut jammed = false;
        for (o, ct) in open.iter().zip(list.iter_mut()) {
            if o.kind != SlotKind::Xor {
                continue;
            }
            let mut mask = vec![0u8; o.len];
            let mut hasher = blake3::Hasher::new();
            hasher
                .update(b"verdict-node jammer")
                .update(me.to_string().as_bytes());
            hasher.finalize_xof().fill(&mut mask);
            for (b, m) in ct.iter_mut().skip(SLOT_HEADER_LEN).zip(&mask) {
                *b ^= *m;
            }
            jammed = true;
        }
        if !jammed {
            return None;
        }
        let mut w = Writer::new();
        write_byte_list(&mut w, &list);
        let payload = w.finish();
        Some(Envelope::seal(key, Kind::Submission, me, h.session, h.round, payload, rng).to_bytes())
    }
}
