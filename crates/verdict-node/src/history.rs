//! Durable history: every certified round output (the `RoundOutput` envelope, which carries
//! the output and all `M` servers' signatures) and every verdict, exclusion and halt, in a
//! `redb` database.
//!
//! Each append is one write transaction committed with redb's default (immediate, fsync'd)
//! durability, and the server appends a round output *before* it queues it for its clients:
//! a client never holds a certified round its server could lose. redb's copy-on-write commit
//! makes a SIGKILL at any point leave either the old or the new state, never a torn one.

use std::path::Path;

use redb::{Database, ReadableTable, TableDefinition};

use crate::error::NodeError;

const ROUNDS: TableDefinition<'_, u64, &[u8]> = TableDefinition::new("rounds");
const EVENTS: TableDefinition<'_, u64, &str> = TableDefinition::new("events");
const META: TableDefinition<'_, &str, &[u8]> = TableDefinition::new("meta");

fn err(e: impl std::fmt::Display) -> NodeError {
    NodeError::History(e.to_string())
}

/// One server's history database.
pub struct History {
    db: Database,
}

impl core::fmt::Debug for History {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("History").finish_non_exhaustive()
    }
}

impl History {
    /// Opens (or creates) `dir/history.redb` for `session`; refuses a database of another
    /// session.
    pub fn open(dir: &Path, session: &[u8; 32]) -> Result<Self, NodeError> {
        std::fs::create_dir_all(dir).map_err(NodeError::io(dir))?;
        let db = Database::create(dir.join("history.redb")).map_err(err)?;
        let tx = db.begin_write().map_err(err)?;
        {
            tx.open_table(ROUNDS).map_err(err)?;
            tx.open_table(EVENTS).map_err(err)?;
            let mut meta = tx.open_table(META).map_err(err)?;
            let stored = meta
                .get("session")
                .map_err(err)?
                .map(|v| v.value().to_vec());
            match stored {
                Some(s) if s != session => {
                    return Err(NodeError::History(format!(
                        "{} holds the history of session {}, not {}",
                        dir.display(),
                        hex::encode(s),
                        hex::encode(session)
                    )));
                }
                Some(_) => {}
                None => {
                    meta.insert("session", session.as_slice()).map_err(err)?;
                }
            }
        }
        tx.commit().map_err(err)?;
        Ok(Self { db })
    }

    /// Opens an existing database read-only style (for `verdict history`).
    pub fn open_existing(dir: &Path) -> Result<Self, NodeError> {
        let path = dir.join("history.redb");
        if !path.exists() {
            return Err(NodeError::History(format!(
                "{}: no history",
                path.display()
            )));
        }
        Ok(Self {
            db: Database::open(path).map_err(err)?,
        })
    }

    /// Appends the certified output of `round` (idempotent: a round is stored once).
    pub fn append_round(&self, round: u64, output: &[u8]) -> Result<(), NodeError> {
        let tx = self.db.begin_write().map_err(err)?;
        {
            let mut t = tx.open_table(ROUNDS).map_err(err)?;
            if t.get(round).map_err(err)?.is_none() {
                t.insert(round, output).map_err(err)?;
            }
        }
        tx.commit().map_err(err)
    }

    /// Appends an event (a JSON line).
    pub fn append_event(&self, json: &str) -> Result<(), NodeError> {
        let tx = self.db.begin_write().map_err(err)?;
        {
            let mut t = tx.open_table(EVENTS).map_err(err)?;
            let next = t.last().map_err(err)?.map_or(0, |(k, _)| k.value() + 1);
            t.insert(next, json).map_err(err)?;
        }
        tx.commit().map_err(err)
    }

    /// The stored session id.
    pub fn session(&self) -> Result<Option<Vec<u8>>, NodeError> {
        let tx = self.db.begin_read().map_err(err)?;
        let meta = tx.open_table(META).map_err(err)?;
        Ok(meta
            .get("session")
            .map_err(err)?
            .map(|v| v.value().to_vec()))
    }

    /// Every stored round output, in round order.
    pub fn rounds(&self) -> Result<Vec<(u64, Vec<u8>)>, NodeError> {
        let tx = self.db.begin_read().map_err(err)?;
        let t = tx.open_table(ROUNDS).map_err(err)?;
        t.iter()
            .map_err(err)?
            .map(|item| {
                let (k, v) = item.map_err(err)?;
                Ok((k.value(), v.value().to_vec()))
            })
            .collect()
    }

    /// Up to `limit` stored round outputs from round `from` on, in round order (catch-up reads
    /// the history in such slices, so a client far behind costs bounded memory).
    pub fn rounds_from(&self, from: u64, limit: usize) -> Result<Vec<(u64, Vec<u8>)>, NodeError> {
        let tx = self.db.begin_read().map_err(err)?;
        let t = tx.open_table(ROUNDS).map_err(err)?;
        t.range(from..)
            .map_err(err)?
            .take(limit)
            .map(|item| {
                let (k, v) = item.map_err(err)?;
                Ok((k.value(), v.value().to_vec()))
            })
            .collect()
    }

    /// Every stored event, in order.
    pub fn events(&self) -> Result<Vec<String>, NodeError> {
        let tx = self.db.begin_read().map_err(err)?;
        let t = tx.open_table(EVENTS).map_err(err)?;
        t.iter()
            .map_err(err)?
            .map(|item| Ok(item.map_err(err)?.1.value().to_string()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_survive_reopening_and_sessions_are_not_mixed() {
        let dir = std::env::temp_dir().join(format!("verdict-history-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        {
            let h = History::open(&dir, &[1; 32]).unwrap();
            h.append_round(0, b"zero").unwrap();
            h.append_round(1, b"one").unwrap();
            h.append_round(1, b"other").unwrap();
            h.append_event("{\"event\":\"verdict\"}").unwrap();
        }
        let h = History::open(&dir, &[1; 32]).unwrap();
        assert_eq!(
            h.rounds().unwrap(),
            vec![(0, b"zero".to_vec()), (1, b"one".to_vec())]
        );
        assert_eq!(h.events().unwrap().len(), 1);
        assert_eq!(h.rounds_from(1, 10).unwrap(), vec![(1, b"one".to_vec())]);
        assert_eq!(h.rounds_from(0, 1).unwrap(), vec![(0, b"zero".to_vec())]);
        assert!(h.rounds_from(2, 10).unwrap().is_empty());
        drop(h);
        assert!(History::open(&dir, &[2; 32]).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
