//! `verdict clients` (hidden): many clients in one process, for benchmarks of large groups on
//! one machine.
//!
//! Each client is its own task with its own keys, link and state machine, exactly as
//! `verdict client` runs it; what they share is the process, and with it one verification of
//! the set-up transcript (every client checks the same shuffle proofs, a pure function of the
//! transcript's bytes: [`verdict_proto::SetupCache`]). Only the first client prints events.
//! With `--load B` every client posts a `B`-byte message whenever it has nothing queued after
//! a round, which keeps every slot busy.

use std::path::PathBuf;

use clap::Args;
use tokio::task::JoinSet;
use verdict_dcnet::{ClientId, Party};

use crate::driver::client::ClientOptions;
use crate::error::NodeError;
use crate::groupfile::GroupFile;
use crate::keyfile::KeyFile;
use crate::with_suite;

/// Options of `verdict clients`.
#[derive(Clone, Debug, Args)]
pub struct HostArgs {
    /// The sealed group file.
    #[arg(long)]
    pub group: PathBuf,
    /// The directory holding `c<i>.key` for every client run here.
    #[arg(long)]
    pub key_dir: PathBuf,
    /// The first client's index.
    #[arg(long)]
    pub first: u32,
    /// How many clients (indices `first ..= first + count - 1`).
    #[arg(long)]
    pub count: u32,
    /// Post a message of this many bytes whenever a client has nothing queued after a round.
    #[arg(long, value_name = "BYTES")]
    pub load: Option<usize>,
    /// Exit when the parent process exits.
    #[arg(long)]
    pub watch_parent: bool,
}

/// Runs the clients until every one has stopped, or a signal.
pub async fn run(args: HostArgs) -> Result<(), NodeError> {
    let file = GroupFile::read(&args.group)?;
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut tasks = JoinSet::new();
    with_suite!(file.suite, S => {
        let group = file.open::<S>().map_err(|e| NodeError::bad_file(&args.group, e))?;
        let cache = verdict_proto::SetupCache::<S>::new();
        for i in args.first..args.first.saturating_add(args.count) {
            let path = args.key_dir.join(format!("c{i}.key"));
            let key = KeyFile::load(&path)?;
            if group.dir.by_key.get(&key.transport.public()) != Some(&Party::Client(ClientId(i))) {
                return Err(NodeError::Usage(format!("{}: not client {i} of the group", path.display())));
            }
            let (group, cache, mut stop) = (group.clone(), cache.clone(), stop_rx.clone());
            let metrics = crate::metrics::Metrics::new();
            let options = ClientOptions {
                stdin: false,
                events: i == args.first,
                load: args.load,
                cache: Some(cache),
                ..Default::default()
            };
            tasks.spawn(async move {
                let stopped = async move {
                    let _ = stop.wait_for(|s| *s).await;
                };
                crate::driver::client::run::<S>(group, ClientId(i), key, options, None, metrics, stopped).await
            });
        }
        Ok::<(), NodeError>(())
    })?;
    let shutdown = crate::shutdown::shutdown_signal(args.watch_parent);
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            done = tasks.join_next() => match done {
                None => return Ok(()),
                Some(Ok(Ok(()))) => {}
                Some(Ok(Err(e))) => tracing::warn!(error = %e, "a client stopped"),
                Some(Err(e)) => tracing::warn!(error = %e, "a client task failed"),
            },
            () = &mut shutdown => {
                let _ = stop_tx.send(true);
                while tasks.join_next().await.is_some() {}
                return Ok(());
            }
        }
    }
}
