//! A client's durable state (`verdict client --data DIR`): what it needs to take its place in
//! the session again after a crash or a restart (`verdict_proto::Client::resume`).
//!
//! One `redb` database, `DIR/client.redb`, holding the session id, the set-up seed (written
//! before the first set-up message leaves), the set-up transcript as the upstream sent it, the
//! latest checkpoint (written before the submission it names leaves), and, once the session is
//! over for this client, why. Each write is one fsync'd transaction, so a SIGKILL leaves the
//! previous state or the new one. The seed links this client to its slot: the database file
//! is created mode 0600 in a directory of mode 0700, and nothing in it is ever printed.
//! Messages not yet sent are never written (they die with the process).

use std::path::{Path, PathBuf};

use redb::{Database, TableDefinition};
use verdict_proto::{Checkpoint, SetupSeed};
use zeroize::Zeroizing;

use crate::error::NodeError;

const STATE: TableDefinition<'_, &str, &[u8]> = TableDefinition::new("client");

const SESSION: &str = "session";
const SEED: &str = "seed";
const TRANSCRIPT: &str = "transcript";
const CHECKPOINT: &str = "checkpoint";
const ENDED: &str = "ended";

/// What a client's data directory says about its session.
#[derive(Debug)]
pub enum Stored {
    /// Nothing yet: a first start.
    Fresh,
    /// Started, set-up not complete: start again from the same seed (the set-up message it
    /// derives is the one the servers may already hold).
    InSetup {
        /// The set-up seed.
        seed: SetupSeed,
    },
    /// In the session: resume.
    InSession {
        /// The set-up seed.
        seed: SetupSeed,
        /// The `SetupTranscript` envelope as received.
        transcript: Vec<u8>,
        /// The latest checkpoint.
        checkpoint: Checkpoint,
    },
    /// The session is over for this client.
    Ended {
        /// Why (as recorded).
        why: String,
    },
}

/// One client's durable state.
pub struct ClientStore {
    db: Database,
    path: PathBuf,
}

impl core::fmt::Debug for ClientStore {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ClientStore")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

fn err(e: impl std::fmt::Display) -> NodeError {
    NodeError::History(e.to_string())
}

impl ClientStore {
    /// Opens (or creates) `dir/client.redb` for `session`; refuses the state of another
    /// session.
    pub fn open(dir: &Path, session: &[u8; 32]) -> Result<Self, NodeError> {
        private_dir(dir)?;
        let path = dir.join("client.redb");
        private_file(&path)?;
        let db = Database::create(&path).map_err(err)?;
        let store = Self { db, path };
        match store.get(SESSION)? {
            Some(s) if s != session => Err(NodeError::bad_file(
                &store.path,
                format!(
                    "session: holds the state of session {}, not {}",
                    hex::encode(s),
                    hex::encode(session)
                ),
            )),
            Some(_) => Ok(store),
            None => {
                store.put(SESSION, session)?;
                Ok(store)
            }
        }
    }

    /// What the directory holds.
    pub fn load(&self) -> Result<Stored, NodeError> {
        if let Some(why) = self.get(ENDED)? {
            return Ok(Stored::Ended {
                why: String::from_utf8_lossy(&why).into_owned(),
            });
        }
        let Some(seed) = self.get(SEED)?.map(Zeroizing::new) else {
            return Ok(Stored::Fresh);
        };
        let seed: Zeroizing<[u8; 32]> = Zeroizing::new(
            seed.as_slice()
                .try_into()
                .map_err(|_| NodeError::bad_file(&self.path, "seed: not 32 bytes"))?,
        );
        let seed = SetupSeed::from_bytes(*seed);
        match (self.get(TRANSCRIPT)?, self.get(CHECKPOINT)?) {
            (Some(transcript), Some(checkpoint)) => {
                let checkpoint = Checkpoint::from_bytes(&checkpoint)
                    .map_err(|e| NodeError::bad_file(&self.path, format!("checkpoint: {e}")))?;
                Ok(Stored::InSession {
                    seed,
                    transcript,
                    checkpoint,
                })
            }
            _ => Ok(Stored::InSetup { seed }),
        }
    }

    /// Stores the set-up seed (once: a second seed for one session is refused).
    pub fn save_seed(&self, seed: &SetupSeed) -> Result<(), NodeError> {
        if self.get(SEED)?.is_some() {
            return Err(NodeError::bad_file(&self.path, "seed: already set"));
        }
        self.put(SEED, seed.to_bytes().as_ref())
    }

    /// Stores the set-up transcript with the first checkpoint, in one transaction (a client
    /// stopped between the two would otherwise restart in set-up, waiting for a transcript its
    /// server will not send again).
    pub fn save_session(&self, envelope: &[u8], checkpoint: &Checkpoint) -> Result<(), NodeError> {
        self.put_all(&[(TRANSCRIPT, envelope), (CHECKPOINT, &checkpoint.to_bytes())])
    }

    /// Stores the latest checkpoint.
    pub fn save_checkpoint(&self, checkpoint: &Checkpoint) -> Result<(), NodeError> {
        self.put(CHECKPOINT, &checkpoint.to_bytes())
    }

    /// Records that the session is over for this client.
    pub fn save_ended(&self, why: &str) -> Result<(), NodeError> {
        self.put(ENDED, why.as_bytes())
    }

    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, NodeError> {
        let tx = self.db.begin_read().map_err(err)?;
        let table = match tx.open_table(STATE) {
            Ok(t) => t,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(None),
            Err(e) => return Err(err(e)),
        };
        Ok(table.get(key).map_err(err)?.map(|v| v.value().to_vec()))
    }

    fn put(&self, key: &str, value: &[u8]) -> Result<(), NodeError> {
        self.put_all(&[(key, value)])
    }

    fn put_all(&self, entries: &[(&str, &[u8])]) -> Result<(), NodeError> {
        let tx = self.db.begin_write().map_err(err)?;
        {
            let mut t = tx.open_table(STATE).map_err(err)?;
            for (key, value) in entries {
                t.insert(*key, *value).map_err(err)?;
            }
        }
        tx.commit().map_err(err)
    }
}

/// Creates `dir` with mode 0700 (Unix) if it does not exist; refuses an existing one that
/// others can enter.
fn private_dir(dir: &Path) -> Result<(), NodeError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        if !dir.exists() {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(NodeError::io(dir))?;
        }
        let mode = std::fs::metadata(dir)
            .map_err(NodeError::io(dir))?
            .permissions()
            .mode();
        if mode & 0o077 != 0 {
            return Err(NodeError::bad_file(
                dir,
                "a client's data directory (it holds the set-up seed) must not be open to others \
                 (chmod 700 it)",
            ));
        }
    }
    #[cfg(not(unix))]
    std::fs::create_dir_all(dir).map_err(NodeError::io(dir))?;
    Ok(())
}

/// Creates `path` empty with mode 0600 if it does not exist (redb then opens it), and refuses
/// one that others can read.
fn private_file(path: &Path) -> Result<(), NodeError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        if !path.exists() {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(path)
                .map_err(NodeError::io(path))?;
        }
        let meta = std::fs::metadata(path).map_err(NodeError::io(path))?;
        if meta.permissions().mode() & 0o077 != 0 {
            return Err(NodeError::bad_file(
                path,
                "client state (it holds the set-up seed) is readable by others (chmod 600 it)",
            ));
        }
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("verdict-cs-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn the_state_survives_reopening_and_sessions_are_not_mixed() {
        let d = dir("reopen");
        {
            let s = ClientStore::open(&d, &[1; 32]).unwrap();
            assert!(matches!(s.load().unwrap(), Stored::Fresh));
            s.save_seed(&SetupSeed::from_bytes([7; 32])).unwrap();
            assert!(s.save_seed(&SetupSeed::from_bytes([8; 32])).is_err());
        }
        let s = ClientStore::open(&d, &[1; 32]).unwrap();
        match s.load().unwrap() {
            Stored::InSetup { seed } => assert_eq!(*seed.to_bytes(), [7; 32]),
            other => panic!("{other:?}"),
        }
        // A transcript without a checkpoint is still set-up (written by an older version).
        s.put(TRANSCRIPT, b"transcript").unwrap();
        assert!(matches!(s.load().unwrap(), Stored::InSetup { .. }));
        // A damaged checkpoint is refused with the field named.
        s.put(CHECKPOINT, b"garbage").unwrap();
        let e = s.load().unwrap_err().to_string();
        assert!(e.contains("checkpoint"), "{e}");
        s.save_ended("excluded").unwrap();
        assert!(matches!(s.load().unwrap(), Stored::Ended { why } if why == "excluded"));
        drop(s);
        assert!(ClientStore::open(&d, &[2; 32]).is_err());
        // A directory others can enter is refused.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let open = dir("open");
            std::fs::create_dir_all(&open).unwrap();
            std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o755)).unwrap();
            let e = ClientStore::open(&open, &[1; 32]).unwrap_err().to_string();
            assert!(e.contains("chmod 700"), "{e}");
            let _ = std::fs::remove_dir_all(&open);
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(d.join("client.redb"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
            std::fs::set_permissions(
                d.join("client.redb"),
                std::fs::Permissions::from_mode(0o644),
            )
            .unwrap();
            assert!(ClientStore::open(&d, &[1; 32]).is_err());
        }
        let _ = std::fs::remove_dir_all(&d);
    }
}
