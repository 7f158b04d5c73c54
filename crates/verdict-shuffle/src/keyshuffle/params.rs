//! The public parameters of a pseudonym-key shuffle and the proof contexts they define.

use verdict_group::Group;
use verdict_nizk::{Context, Encoded, LinearRelation};

use crate::VERSION;
use crate::elgamal::{Ciphertext, joint_key};
use crate::error::KeyShuffleError;

pub(super) const PURPOSE_SUBMISSION: &[u8] = b"verdict-shuffle/key-submission";
pub(super) const PURPOSE_DECRYPTION: &[u8] = b"verdict-shuffle/decryption-share";

/// The public parameters of one pseudonym-key shuffle.
#[derive(Debug, Clone)]
pub struct KeyShuffleParams<G: Group> {
    pub(super) session: [u8; 32],
    pub(super) server_keys: Vec<G>,
    pub(super) joint: G,
    pub(super) num_clients: usize,
}

impl<G: Group> KeyShuffleParams<G> {
    /// Parameters for `session`, the servers' public keys in roster order (each registered with
    /// a proof of knowledge of its secret, which the roster checks), and the roster's number of
    /// clients.
    pub fn new(
        session: [u8; 32],
        server_keys: Vec<G>,
        num_clients: usize,
    ) -> Result<Self, KeyShuffleError> {
        if server_keys.is_empty() {
            return Err(KeyShuffleError::Params("no servers"));
        }
        if num_clients < 2 {
            return Err(KeyShuffleError::Params("fewer than 2 clients"));
        }
        if server_keys.iter().any(Group::is_identity) {
            return Err(KeyShuffleError::Params("identity server key"));
        }
        if u32::try_from(server_keys.len()).is_err() || u32::try_from(num_clients).is_err() {
            return Err(KeyShuffleError::Params("too many participants"));
        }
        let joint = joint_key(&server_keys);
        if joint.is_identity() {
            return Err(KeyShuffleError::Params("joint key is the identity"));
        }
        Ok(Self {
            session,
            server_keys,
            joint,
            num_clients,
        })
    }
    /// The joint encryption key `h = Σ h_j`.
    pub fn joint_key(&self) -> G {
        self.joint
    }
    /// The number of servers `M`.
    pub fn num_servers(&self) -> usize {
        self.server_keys.len()
    }
    /// The session id.
    pub fn session(&self) -> &[u8; 32] {
        &self.session
    }

    pub(super) fn submission_relation(
        &self,
        ct: &Ciphertext<G>,
    ) -> Result<LinearRelation<G>, &'static str> {
        let g = Encoded::<G>::generator();
        let mut rel = LinearRelation::<G>::new(2);
        rel.add_equation(ct.x, [(0, g.clone())])
            .map_err(|_| "relation")?;
        rel.add_equation(ct.y, [(0, Encoded::new(self.joint)), (1, g)])
            .map_err(|_| "relation")?;
        Ok(rel)
    }

    pub(super) fn submission_context(&self, client: u32) -> Context {
        Context::new(PURPOSE_SUBMISSION, self.session)
            .with_sender(client)
            .with_field(b"version", &VERSION.to_le_bytes())
            .with_field(b"group", G::NAME.as_bytes())
    }

    pub(super) fn decryption_context(&self, server: u32) -> Context {
        Context::new(PURPOSE_DECRYPTION, self.session)
            .with_sender(server)
            .with_field(b"version", &VERSION.to_le_bytes())
            .with_field(b"group", G::NAME.as_bytes())
    }
}
