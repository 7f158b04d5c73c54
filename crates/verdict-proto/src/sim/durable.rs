//! What the simulator keeps on its participants' behalf, as a node keeps it on disk: each
//! server's history of the round outputs it sent its clients (served when a client asks to
//! catch up from further back than the server keeps in memory), and, for clients made
//! restartable, the set-up seed, the set-up transcript and the latest checkpoint (so a client
//! can be restarted from them).

use std::collections::BTreeMap;
use std::sync::Arc;

use verdict_dcnet::{ClientId, Party, ServerId};

use crate::client::{Checkpoint, SetupSeed};
use crate::event::{Event, Transmit};
use crate::wire::{Header, Kind};

/// Every round output each server sent its clients, by round (one shared buffer per round).
#[derive(Default)]
pub(super) struct Histories {
    outputs: BTreeMap<ServerId, BTreeMap<u64, Arc<[u8]>>>,
}

impl Histories {
    /// Records `t` if it is a round output for a client (as the node stores it before sending).
    pub(super) fn record(&mut self, server: ServerId, t: &Transmit) {
        if let (Party::Client(_), Ok(h)) = (t.to, Header::from_prefix(&t.bytes))
            && h.kind == Kind::RoundOutput
        {
            self.outputs
                .entry(server)
                .or_default()
                .entry(h.round)
                .or_insert_with(|| Arc::clone(&t.bytes));
        }
    }

    /// What a driver with a durable history sends for `server`'s event `e`, if it asks for
    /// anything ([`Event::CatchUpFromHistory`]).
    pub(super) fn serve(&self, server: ServerId, e: &Event) -> Vec<Transmit> {
        let Event::CatchUpFromHistory {
            client,
            from,
            until,
        } = e
        else {
            return Vec::new();
        };
        let Some(outputs) = self.outputs.get(&server) else {
            return Vec::new();
        };
        outputs
            .range(*from..*until)
            .map(|(_, bytes)| Transmit {
                to: Party::Client(*client),
                bytes: Arc::clone(bytes),
            })
            .collect()
    }
}

/// What a restartable client has on disk.
pub(super) struct ClientDisk {
    pub(super) seed: SetupSeed,
    /// The `SetupTranscript` envelope, as received from the upstream server.
    pub(super) transcript: Option<Arc<[u8]>>,
    pub(super) checkpoint: Option<Checkpoint>,
}

/// The restartable clients' disks.
#[derive(Default)]
pub(super) struct Disks {
    pub(super) clients: BTreeMap<ClientId, ClientDisk>,
}

impl Disks {
    /// After client `c` handled `bytes`: keeps the transcript once the client has entered the
    /// session with it, and its checkpoint (before its transmissions leave, as a node must).
    pub(super) fn after_message(
        &mut self,
        c: ClientId,
        bytes: &Arc<[u8]>,
        checkpoint: Option<Checkpoint>,
    ) {
        let Some(disk) = self.clients.get_mut(&c) else {
            return;
        };
        if disk.transcript.is_none()
            && checkpoint.is_some()
            && Header::from_prefix(bytes).is_ok_and(|h| h.kind == Kind::SetupTranscript)
        {
            disk.transcript = Some(Arc::clone(bytes));
        }
        if checkpoint.is_some() {
            disk.checkpoint = checkpoint;
        }
    }

    /// The client's checkpoint changed outside a message (a move to another upstream): it is
    /// on disk before what the move sends leaves, as a node's driver does.
    pub(super) fn save_checkpoint(&mut self, c: ClientId, checkpoint: Option<Checkpoint>) {
        if let (Some(disk), Some(cp)) = (self.clients.get_mut(&c), checkpoint) {
            disk.checkpoint = Some(cp);
        }
    }
}
