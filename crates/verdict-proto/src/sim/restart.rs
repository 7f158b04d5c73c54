//! Restarting a simulated client from what it keeps on disk, as `verdict client --data` does.

use std::sync::Arc;

use verdict_dcnet::{ClientId, Party};

use crate::client::{Checkpoint, Client, ResumeError, SetupCache, SetupSeed};
use crate::suite::ProtoSuite;

use super::durable::ClientDisk;
use super::{Simulator, fork};

impl<S: ProtoSuite> Simulator<S> {
    /// Makes client `i` restartable: it is rebuilt with [`Client::new_seeded`] (a seed drawn
    /// from the simulator's RNG), and from now on the simulator keeps its set-up transcript and
    /// its checkpoint after every message it handles, before its transmissions leave — what a
    /// node stores on disk. Call it before [`Simulator::start`] (the client's first set-up
    /// message must come from the seeded client).
    pub fn make_restartable(&mut self, i: usize) -> Result<(), crate::ConfigError> {
        let id = ClientId(i as u32);
        let keys = self
            .client_keys
            .get(i)
            .cloned()
            .ok_or(crate::ConfigError::GroupSize("no such client"))?;
        let seed = SetupSeed::generate(&mut self.rng);
        let client =
            Client::new_seeded(self.config.clone(), id, keys, &seed, fork(&mut self.rng)?)?
                .with_setup_cache(SetupCache::new());
        if let Some(slot) = self.clients.get_mut(i) {
            *slot = client;
        }
        self.disks.clients.insert(
            id,
            ClientDisk {
                seed,
                transcript: None,
                checkpoint: None,
            },
        );
        Ok(())
    }

    /// What restartable client `i` has on disk: its set-up transcript and latest checkpoint
    /// (tests resume clients from them directly).
    pub fn stored(&self, i: usize) -> Option<(Arc<[u8]>, Checkpoint)> {
        let disk = self.disks.clients.get(&ClientId(i as u32))?;
        Some((disk.transcript.clone()?, disk.checkpoint.clone()?))
    }

    /// The set-up seed of restartable client `i` (tests resume clients from it directly).
    pub fn setup_seed(&self, i: usize) -> Option<SetupSeed> {
        let disk = self.disks.clients.get(&ClientId(i as u32))?;
        Some(SetupSeed::from_bytes(*disk.seed.to_bytes()))
    }

    /// Restarts client `i` (made restartable) from its disk, as after a crash: everything it
    /// held only in memory — queued messages, the frame it last sent — is gone. The restarted
    /// client resends its last submission and, like any client whose link came back, asks its
    /// server for the outputs it missed. Messages already on their way to it are delivered to
    /// the new process (as a node's per-peer queue does after a reconnect).
    ///
    /// A client restarted before its transcript was on disk (in set-up) starts again from its
    /// seed ([`Client::new_seeded`]): it re-derives the same set-up secrets and sends its set-up
    /// message anew, which a server past set-up answers with the transcript.
    pub fn restart(&mut self, i: usize) -> Result<(), ResumeError> {
        let id = ClientId(i as u32);
        let missing = || ResumeError::Checkpoint(crate::WireError::Invalid("nothing on disk"));
        let disk = self.disks.clients.get(&id).ok_or_else(missing)?;
        let keys = self.client_keys.get(i).cloned().ok_or_else(missing)?;
        let rng = fork(&mut self.rng)?;
        let client = match (&disk.transcript, &disk.checkpoint) {
            (Some(transcript), Some(checkpoint)) => {
                let mut client = Client::resume(
                    self.config.clone(),
                    id,
                    keys,
                    &disk.seed,
                    transcript.clone(),
                    checkpoint,
                    rng,
                )?;
                client.reconnected();
                client
            }
            (None, _) => Client::new_seeded(self.config.clone(), id, keys, &disk.seed, rng)?
                .with_setup_cache(SetupCache::new()),
            (Some(_), None) => return Err(missing()),
        };
        if let Some(slot) = self.clients.get_mut(i) {
            *slot = client;
        }
        self.collect(Party::Client(id));
        Ok(())
    }
}
