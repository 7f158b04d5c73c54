//! The group file: a TOML roster that the convener creates (`group new`), each member joins
//! with its own key (`group add`: registration proofs and the transport-key certificate need
//! the member's secrets), and the convener seals (`group seal`: the versioned
//! `GroupConfig` encoding, validated, plus the session id).
//!
//! Binary fields are hex. On load, the sealed configuration is decoded and validated by
//! `verdict-proto`, every roster entry must match it, and every transport certificate must
//! verify under its member's Verdict signing key.

use std::net::SocketAddr;
use std::path::Path;

use rand_core::{CryptoRng, RngCore};
use serde::{Deserialize, Serialize};
use verdict_dcnet::{ClientId, Party, ServerId};
use verdict_proto::{GroupConfig, Member, Policy, ProtoSuite};

use crate::error::NodeError;
use crate::keyfile::KeyFile;
use crate::suite::SuiteChoice;
use crate::transport::noise::{certify, verify_cert};
use crate::transport::peers::Directory;

/// A server's roster entry.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ServerEntry {
    /// Where it listens.
    pub addr: SocketAddr,
    /// Its transport public key.
    pub transport: String,
    /// The transport key's certificate (signed by its Verdict signing key).
    pub transport_cert: String,
    /// Its registered Verdict keys (`Member` encoding).
    pub member: String,
}

/// A client's roster entry.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ClientEntry {
    /// Its upstream server's index.
    pub upstream: u32,
    /// Its transport public key.
    pub transport: String,
    /// The transport key's certificate.
    pub transport_cert: String,
    /// Its registered Verdict keys.
    pub member: String,
}

/// The group file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GroupFile {
    /// Format version (1).
    pub version: u32,
    /// The ciphersuite.
    pub suite: SuiteChoice,
    /// The group nonce.
    pub nonce: String,
    /// The policy's canonical encoding.
    pub policy: String,
    /// The sealed `GroupConfig` encoding (absent until `group seal`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sealed: Option<String>,
    /// The session id (with `sealed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// Servers in roster order.
    #[serde(default)]
    pub servers: Vec<ServerEntry>,
    /// Clients in roster order.
    #[serde(default)]
    pub clients: Vec<ClientEntry>,
}

fn hex32(field: &str, text: &str) -> Result<[u8; 32], String> {
    let mut out = [0u8; 32];
    hex::decode_to_slice(text, &mut out).map_err(|_| format!("{field}: not 32 hex bytes"))?;
    Ok(out)
}

fn unhex(field: &str, text: &str) -> Result<Vec<u8>, String> {
    hex::decode(text).map_err(|_| format!("{field}: not hex"))
}

/// A loaded, validated, sealed group.
pub struct Group<S: ProtoSuite> {
    /// The protocol configuration.
    pub config: GroupConfig<S>,
    /// Transport keys and addresses.
    pub dir: Directory,
    /// The session id.
    pub session: [u8; 32],
}

// By hand: `S` itself need not be `Clone` (the configuration is).
impl<S: ProtoSuite> Clone for Group<S> {
    fn clone(&self) -> Self {
        Self {
            config: self.config.clone(),
            dir: self.dir.clone(),
            session: self.session,
        }
    }
}

impl GroupFile {
    /// A new, empty group.
    pub fn new<R: RngCore + CryptoRng>(suite: SuiteChoice, policy: &Policy, rng: &mut R) -> Self {
        let mut nonce = [0u8; 32];
        rng.fill_bytes(&mut nonce);
        Self {
            version: 1,
            suite,
            nonce: hex::encode(nonce),
            policy: hex::encode(policy.to_bytes()),
            sealed: None,
            session: None,
            servers: Vec::new(),
            clients: Vec::new(),
        }
    }

    /// Reads a group file (not yet validated: see [`GroupFile::open`]).
    pub fn read(path: &Path) -> Result<Self, NodeError> {
        let text = std::fs::read_to_string(path).map_err(NodeError::io(path))?;
        let file: Self = toml::from_str(&text).map_err(|e| NodeError::bad_file(path, e))?;
        if file.version != 1 {
            return Err(NodeError::bad_file(path, "version: unsupported"));
        }
        Ok(file)
    }

    /// Writes the group file.
    pub fn write(&self, path: &Path) -> Result<(), NodeError> {
        let text = toml::to_string_pretty(self).map_err(|e| NodeError::bad_file(path, e))?;
        std::fs::write(path, text).map_err(NodeError::io(path))
    }

    fn nonce(&self) -> Result<[u8; 32], String> {
        hex32("nonce", &self.nonce)
    }

    /// Adds the member holding `key`: a server listening on `addr`, or a client of server
    /// `upstream`. Returns its party.
    pub fn add<S: ProtoSuite, R: RngCore + CryptoRng>(
        &mut self,
        key: &KeyFile,
        role: AddRole,
        rng: &mut R,
    ) -> Result<Party, String> {
        if self.sealed.is_some() {
            return Err("the group is sealed; members cannot be added".into());
        }
        let nonce = self.nonce()?;
        let keys = key.verdict_keys::<S::G>().map_err(|e| e.to_string())?;
        let transport = key.transport.public();
        let party = match role {
            AddRole::Server(_) => Party::Server(ServerId(self.servers.len() as u32)),
            AddRole::Client(_) => Party::Client(ClientId(self.clients.len() as u32)),
        };
        let all_transport = self
            .servers
            .iter()
            .map(|s| &s.transport)
            .chain(self.clients.iter().map(|c| &c.transport));
        if all_transport
            .into_iter()
            .any(|t| *t == hex::encode(transport))
        {
            return Err("this key is already in the group".into());
        }
        let member = Member::<S>::register(&keys, party, &nonce, rng).to_bytes();
        let cert = certify(keys.signing(), &nonce, party, &transport, rng);
        match role {
            AddRole::Server(addr) => self.servers.push(ServerEntry {
                addr,
                transport: hex::encode(transport),
                transport_cert: hex::encode(cert),
                member: hex::encode(member),
            }),
            AddRole::Client(upstream) => self.clients.push(ClientEntry {
                upstream,
                transport: hex::encode(transport),
                transport_cert: hex::encode(cert),
                member: hex::encode(member),
            }),
        }
        Ok(party)
    }

    /// Assembles the configuration from the roster and validates it.
    fn assemble<S: ProtoSuite>(&self) -> Result<GroupConfig<S>, String> {
        let policy =
            Policy::from_bytes(&unhex("policy", &self.policy)?).map_err(|e| e.to_string())?;
        let member = |field: String, text: &str| {
            Member::<S>::from_bytes(&unhex(&field, text)?).map_err(|e| format!("{field}: {e}"))
        };
        let servers = self
            .servers
            .iter()
            .enumerate()
            .map(|(j, s)| member(format!("servers[{j}].member"), &s.member))
            .collect::<Result<Vec<_>, _>>()?;
        let clients = self
            .clients
            .iter()
            .enumerate()
            .map(|(i, c)| member(format!("clients[{i}].member"), &c.member))
            .collect::<Result<Vec<_>, _>>()?;
        let config = GroupConfig {
            policy,
            nonce: self.nonce()?,
            servers,
            clients,
            upstream: self.clients.iter().map(|c| ServerId(c.upstream)).collect(),
        };
        config.validate().map_err(|e| e.to_string())?;
        Ok(config)
    }

    /// Seals the group: validates every registration and certificate and records the
    /// configuration and the session id.
    pub fn seal<S: ProtoSuite>(&mut self) -> Result<[u8; 32], String> {
        let config = self.assemble::<S>()?;
        self.directory(&config)?;
        let session = config.session_id().0;
        self.sealed = Some(hex::encode(config.to_bytes()));
        self.session = Some(hex::encode(session));
        Ok(session)
    }

    /// Every transport key with its verified certificate, and the servers' addresses.
    fn directory<S: ProtoSuite>(&self, config: &GroupConfig<S>) -> Result<Directory, String> {
        let nonce = self.nonce()?;
        let mut dir = Directory::default();
        let entries = self
            .servers
            .iter()
            .enumerate()
            .map(|(j, s)| {
                (
                    Party::Server(ServerId(j as u32)),
                    format!("servers[{j}]"),
                    &s.transport,
                    &s.transport_cert,
                )
            })
            .chain(self.clients.iter().enumerate().map(|(i, c)| {
                (
                    Party::Client(ClientId(i as u32)),
                    format!("clients[{i}]"),
                    &c.transport,
                    &c.transport_cert,
                )
            }));
        for (party, name, transport, cert) in entries {
            let t = hex32(&format!("{name}.transport"), transport)?;
            let cert = unhex(&format!("{name}.transport_cert"), cert)?;
            let key = config
                .key_of(party)
                .ok_or_else(|| format!("{name}: not in the configuration"))?;
            if !verify_cert(key, &nonce, party, &t, &cert) {
                return Err(format!("{name}.transport_cert: does not verify"));
            }
            if dir.by_key.insert(t, party).is_some() {
                return Err(format!("{name}.transport: key used twice"));
            }
        }
        for (j, s) in self.servers.iter().enumerate() {
            dir.addrs.insert(Party::Server(ServerId(j as u32)), s.addr);
        }
        Ok(dir)
    }

    /// Loads a sealed group for suite `S`.
    pub fn open<S: ProtoSuite>(&self) -> Result<Group<S>, String> {
        let sealed = self
            .sealed
            .as_deref()
            .ok_or("sealed: the group is not sealed (run `verdict group seal`)")?;
        let config = GroupConfig::<S>::from_bytes(&unhex("sealed", sealed)?)
            .map_err(|e| format!("sealed: {e}"))?;
        let roster = self.assemble::<S>()?;
        if roster.to_bytes() != config.to_bytes() {
            return Err("sealed: does not match the roster entries".into());
        }
        let session = config.session_id().0;
        if self.session.as_deref() != Some(hex::encode(session).as_str()) {
            return Err("session: does not match the sealed configuration".into());
        }
        let dir = self.directory(&config)?;
        Ok(Group {
            config,
            dir,
            session,
        })
    }
}

/// What `group add` adds.
#[derive(Clone, Copy, Debug)]
pub enum AddRole {
    /// A server listening on this address.
    Server(SocketAddr),
    /// A client of this server.
    Client(u32),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::Hashing;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    fn sealed() -> GroupFile {
        let mut rng = ChaCha20Rng::seed_from_u64(11);
        let mut file = GroupFile::new(SuiteChoice::Hashing, &Policy::default(), &mut rng);
        let addr = "127.0.0.1:7000".parse().unwrap();
        let server = KeyFile::generate(&mut rng);
        file.add::<Hashing, _>(&server, AddRole::Server(addr), &mut rng)
            .unwrap();
        for _ in 0..2 {
            let key = KeyFile::generate(&mut rng);
            file.add::<Hashing, _>(&key, AddRole::Client(0), &mut rng)
                .unwrap();
        }
        assert!(
            file.add::<Hashing, _>(&server, AddRole::Server(addr), &mut rng)
                .is_err(),
            "a key joins once"
        );
        file.seal::<Hashing>().unwrap();
        file
    }

    #[test]
    fn a_sealed_group_opens_and_survives_toml() {
        let file = sealed();
        let text = toml::to_string_pretty(&file).unwrap();
        let back: GroupFile = toml::from_str(&text).unwrap();
        let group = back.open::<Hashing>().unwrap();
        assert_eq!(group.dir.by_key.len(), 3);
        assert_eq!(group.config.num_clients(), 2);
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let mut sealed = back.clone();
        assert!(
            sealed
                .add::<Hashing, _>(&KeyFile::generate(&mut rng), AddRole::Client(0), &mut rng)
                .is_err()
        );
    }

    #[test]
    fn tampering_is_refused_naming_the_field() {
        let check = |f: &dyn Fn(&mut GroupFile), field: &str| {
            let mut file = sealed();
            f(&mut file);
            let err = file.open::<Hashing>().err().unwrap_or_default();
            assert!(err.contains(field), "expected {field} in: {err}");
        };
        check(&|f| f.policy.truncate(10), "policy");
        check(
            &|f| f.clients[1].transport_cert = f.clients[0].transport_cert.clone(),
            "clients[1].transport_cert",
        );
        check(
            &|f| f.clients[0].transport = f.clients[1].transport.clone(),
            "clients[0].transport_cert",
        );
        check(&|f| f.clients[1].upstream = 5, "upstream");
        check(&|f| f.sealed = None, "sealed");
        check(&|f| f.servers[0].member.truncate(40), "servers[0]");
        check(&|f| f.session = Some(hex::encode([0u8; 32])), "session");
    }
}
