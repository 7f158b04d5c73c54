//! The command line: `keygen`, `group new|add|seal`, `server`, `client`, `history`, `local`.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand};
use verdict_dcnet::{ClientId, Party, ServerId};

use crate::error::NodeError;
use crate::groupfile::{AddRole, GroupFile};
use crate::keyfile::KeyFile;
pub use crate::policy_args::{ModeChoice, PolicyArgs};
use crate::shutdown::shutdown_signal;
use crate::with_suite;

/// Run a Verdict group: anonymous, accountable messaging on verifiable DC-nets.
#[derive(Debug, Parser)]
#[command(name = "verdict", version)]
pub struct Cli {
    /// More logging (-v: debug, -vv: trace); `RUST_LOG` overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Generate a member's secret key file (mode 0600) and print its public keys.
    Keygen {
        /// Where to write the key (must not exist).
        #[arg(long)]
        out: PathBuf,
    },
    /// Create, join and seal a group file.
    #[command(subcommand)]
    Group(GroupCommand),
    /// Run a server.
    Server(RunArgs),
    /// Run a client: messages from stdin or `--socket` (one per line), events to stdout as JSON
    /// lines.
    Client(RunArgs),
    /// Print a server's durable history.
    History {
        /// The server's data directory.
        #[arg(long)]
        data: PathBuf,
    },
    /// Generate a group in a temporary directory and run every member as a process on
    /// 127.0.0.1.
    Local(crate::local::LocalArgs),
    /// Run many clients in one process, sharing one set-up verification (benchmarks).
    #[command(hide = true)]
    Clients(crate::host::HostArgs),
}

/// `verdict group …`.
#[derive(Debug, Subcommand)]
pub enum GroupCommand {
    /// Start a group file with a fresh nonce and the policy.
    New {
        /// The group file to create.
        #[arg(long)]
        out: PathBuf,
        /// The policy.
        #[command(flatten)]
        policy: PolicyArgs,
    },
    /// Add the member holding `--key` (run by the member: it signs its registration).
    Add {
        /// The group file.
        #[arg(long)]
        group: PathBuf,
        /// The member's key file.
        #[arg(long)]
        key: PathBuf,
        /// Add a server listening on this address.
        #[arg(long, conflicts_with = "upstream")]
        server: Option<SocketAddr>,
        /// Add a client of this server (index).
        #[arg(long)]
        upstream: Option<u32>,
    },
    /// Validate every registration and certificate and seal the group.
    Seal {
        /// The group file.
        #[arg(long)]
        group: PathBuf,
    },
}

/// Options of `server` and `client`.
#[derive(Clone, Debug, Args)]
pub struct RunArgs {
    /// The sealed group file.
    #[arg(long)]
    pub group: PathBuf,
    /// This member's key file.
    #[arg(long)]
    pub key: PathBuf,
    /// The data directory: a server's durable history (required), a client's restart state
    /// (optional; without it a client that stops cannot rejoin the session).
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// Serve Prometheus / OpenMetrics figures at `http://ADDR/metrics` (rounds, round interval,
    /// participants, deliveries, exclusions, verdicts, rejected messages, bytes and messages
    /// sent and received, halted). Unauthenticated: bind loopback or a monitoring network.
    #[arg(long, value_name = "ADDR")]
    pub metrics: Option<std::net::SocketAddr>,
    /// Clients: also take messages from this Unix socket (created mode 0600), one per line,
    /// each answered with a JSON line `{"queued": true}` or `{"queued": false, "error": …}`.
    #[arg(long, value_name = "PATH")]
    pub socket: Option<PathBuf>,
    /// Jam every XOR slot from this round on (a demonstration of hybrid-mode blame).
    #[arg(long, hide = true)]
    pub jam_from_round: Option<u64>,
    /// Servers: drop every submission of this client unseen (a censoring server: a
    /// demonstration of clients moving to another upstream).
    #[arg(long, hide = true, value_name = "I")]
    pub censor_client: Option<u32>,
    /// Servers: from round R on, drop client I's link and refuse its connections (`I:R`; a
    /// server that cuts a client off: a demonstration of clients moving to another upstream).
    #[arg(long, hide = true, value_name = "I:R", value_parser = parse_cut)]
    pub cut_client: Option<(u32, u64)>,
    /// Servers: drop the set-up transcript sent to client I, once, as if its connection had
    /// died with it (a demonstration of a client restarted in set-up getting it again).
    #[arg(long, hide = true, value_name = "I")]
    pub lose_transcript_to: Option<u32>,
    /// Exit when the parent process exits (set by `verdict local`: no orphans).
    #[arg(long, hide = true)]
    pub watch_parent: bool,
}

/// `I:R` (a client index and a round).
fn parse_cut(s: &str) -> Result<(u32, u64), String> {
    let (c, r) = s.split_once(':').ok_or("expected I:R")?;
    Ok((
        c.parse().map_err(|e| format!("client index: {e}"))?,
        r.parse().map_err(|e| format!("round: {e}"))?,
    ))
}

/// Sets up `tracing` to stderr.
pub fn init_logging(verbose: u8) {
    let default = match verbose {
        0 => "info",
        1 => "debug",
        _ => "trace",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
}

/// Runs a parsed command line.
pub async fn run(cli: Cli) -> Result<(), NodeError> {
    match cli.command {
        Command::Keygen { out } => keygen(&out),
        Command::Group(g) => group(g),
        Command::Server(args) => member(args, true).await,
        Command::Client(args) => member(args, false).await,
        Command::History { data } => history(&data),
        Command::Local(args) => crate::local::run(args).await,
        Command::Clients(args) => crate::host::run(args).await,
    }
}

fn keygen(out: &Path) -> Result<(), NodeError> {
    let key = KeyFile::generate(&mut rand_core::OsRng);
    key.write(out)?;
    let keys = key.verdict_keys::<verdict_group::Ristretto255>()?;
    println!(
        "verdict key:   {}",
        hex::encode(keys.signing().verifying_key().to_bytes())
    );
    println!("transport key: {}", hex::encode(key.transport.public()));
    Ok(())
}

fn group(g: GroupCommand) -> Result<(), NodeError> {
    match g {
        GroupCommand::New { out, policy } => {
            if out.exists() {
                return Err(NodeError::Usage(format!("{} exists", out.display())));
            }
            let p = policy.policy();
            p.validate()?;
            GroupFile::new(policy.suite, &p, &mut rand_core::OsRng).write(&out)
        }
        GroupCommand::Add {
            group,
            key,
            server,
            upstream,
        } => {
            let mut file = GroupFile::read(&group)?;
            let keyfile = KeyFile::load(&key)?;
            let role = match (server, upstream) {
                (Some(addr), None) => AddRole::Server(addr),
                (None, Some(up)) => AddRole::Client(up),
                _ => {
                    return Err(NodeError::Usage(
                        "give either --server ADDR or --upstream J".into(),
                    ));
                }
            };
            let party = with_suite!(file.suite, S => file.add::<S, _>(&keyfile, role, &mut rand_core::OsRng))
                .map_err(|e| NodeError::bad_file(&group, e))?;
            file.write(&group)?;
            println!("added {party}");
            Ok(())
        }
        GroupCommand::Seal { group } => {
            let mut file = GroupFile::read(&group)?;
            let session = with_suite!(file.suite, S => file.seal::<S>())
                .map_err(|e| NodeError::bad_file(&group, e))?;
            file.write(&group)?;
            println!("session {}", hex::encode(session));
            Ok(())
        }
    }
}

async fn member(args: RunArgs, server: bool) -> Result<(), NodeError> {
    let file = GroupFile::read(&args.group)?;
    let key = KeyFile::load(&args.key)?;
    let shutdown = shutdown_signal(args.watch_parent);
    let metrics = crate::metrics::Metrics::new();
    if let Some(addr) = args.metrics {
        let bound = metrics.serve(addr).await?;
        crate::output::emit(&serde_json::json!({"event": "metrics", "addr": bound.to_string()}));
    }
    with_suite!(file.suite, S => {
        let group = file.open::<S>().map_err(|e| NodeError::bad_file(&args.group, e))?;
        let me = group.dir.by_key.get(&key.transport.public()).copied().ok_or_else(|| {
            NodeError::Usage(format!("{}: this key is not in the group", args.key.display()))
        })?;
        match (me, server) {
            (Party::Server(id), true) => {
                let data = args.data.clone().ok_or_else(|| NodeError::Usage("a server needs --data DIR".into()))?;
                let faults = crate::driver::server::Faults {
                    censor: args.censor_client.map(ClientId),
                    cut: args.cut_client.map(|(c, r)| (ClientId(c), r)),
                    lose_transcript: args.lose_transcript_to.map(ClientId),
                };
                crate::driver::server::run::<S>(group, ServerId(id.0), key, &data, faults, metrics, shutdown).await
            }
            (Party::Client(id), false) => {
                let jammer = args.jam_from_round.map(|from| crate::driver::jammer::Jammer { from });
                let paths = crate::driver::client::ClientOptions { data: args.data.as_deref(), socket: args.socket.as_deref(), ..Default::default() };
                crate::driver::client::run::<S>(group, ClientId(id.0), key, paths, jammer, metrics, shutdown).await
            }
            (p, _) => Err(NodeError::Usage(format!("this key belongs to {p}, not a {}", if server { "server" } else { "client" }))),
        }
    })
}

fn history(data: &Path) -> Result<(), NodeError> {
    let h = crate::history::History::open_existing(data)?;
    if let Some(s) = h.session()? {
        println!("{}", serde_json::json!({"session": hex::encode(s)}));
    }
    for (round, bytes) in h.rounds()? {
        let digest = blake3::hash(&bytes);
        println!(
            "{}",
            serde_json::json!({"round": round, "bytes": bytes.len(), "blake3": digest.to_hex().to_string()})
        );
    }
    for e in h.events()? {
        println!("{e}");
    }
    Ok(())
}
