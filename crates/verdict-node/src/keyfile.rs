//! A member's secret key file: the 32-byte seed of its Verdict keys (every long-term key is
//! derived from it, see `verdict_proto::keys`) and its separate Noise transport key.
//!
//! Written with mode 0600 and never printed; loading refuses a file readable by others and
//! the sample keys published in documentation.

use std::io::Write;
use std::path::Path;

use rand_core::{CryptoRng, RngCore};
use serde::{Deserialize, Serialize};
use verdict_group::Group;
use verdict_proto::SecretKeys;
use zeroize::{Zeroize, Zeroizing};

use crate::error::NodeError;
use crate::transport::noise::TransportKey;

/// Seeds nobody may run with: all-zero and all-one bytes, the values examples tend to use.
const SAMPLE_SEEDS: [[u8; 32]; 2] = [[0; 32], [1; 32]];

#[derive(Serialize, Deserialize, Zeroize)]
#[zeroize(drop)]
struct KeyToml {
    version: u32,
    verdict_seed: String,
    transport_secret: String,
}

/// A member's secrets, as loaded from its key file.
pub struct KeyFile {
    /// The Verdict seed.
    pub seed: Zeroizing<[u8; 32]>,
    /// The transport key.
    pub transport: TransportKey,
}

impl core::fmt::Debug for KeyFile {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("KeyFile")
            .field("transport_public", &hex::encode(self.transport.public()))
            .finish_non_exhaustive()
    }
}

impl KeyFile {
    /// Fresh keys.
    pub fn generate<R: RngCore + CryptoRng>(rng: &mut R) -> Self {
        let mut seed = Zeroizing::new([0u8; 32]);
        rng.fill_bytes(seed.as_mut());
        Self {
            seed,
            transport: TransportKey::generate(rng),
        }
    }

    /// The Verdict keys for the key group `G`.
    pub fn verdict_keys<G: Group>(&self) -> Result<SecretKeys<G>, NodeError> {
        Ok(SecretKeys::from_seed(&self.seed)?)
    }

    /// Writes the file with mode 0600 (refuses to overwrite).
    pub fn write(&self, path: &Path) -> Result<(), NodeError> {
        let toml = KeyToml {
            version: 1,
            verdict_seed: hex::encode(self.seed.as_ref()),
            transport_secret: hex::encode(self.transport.secret()),
        };
        let text = Zeroizing::new(
            toml::to_string(&toml).map_err(|e| NodeError::bad_file(path, e.to_string()))?,
        );
        let mut opts = std::fs::OpenOptions::new();
        opts.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            opts.mode(0o600);
        }
        let mut f = opts.open(path).map_err(NodeError::io(path))?;
        f.write_all(text.as_bytes()).map_err(NodeError::io(path))?;
        f.sync_all().map_err(NodeError::io(path))
    }

    /// Loads and checks a key file.
    pub fn load(path: &Path) -> Result<Self, NodeError> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let meta = std::fs::metadata(path).map_err(NodeError::io(path))?;
            if meta.permissions().mode() & 0o077 != 0 {
                return Err(NodeError::bad_file(
                    path,
                    "secret key file is readable by others (chmod 600 it)",
                ));
            }
        }
        let text = Zeroizing::new(std::fs::read_to_string(path).map_err(NodeError::io(path))?);
        let toml: KeyToml =
            toml::from_str(&text).map_err(|e| NodeError::bad_file(path, e.message()))?;
        if toml.version != 1 {
            return Err(NodeError::bad_file(path, "version: unsupported"));
        }
        let seed = decode32(&toml.verdict_seed)
            .ok_or_else(|| NodeError::bad_file(path, "verdict_seed: not 32 hex bytes"))?;
        if SAMPLE_SEEDS.iter().any(|s| s == seed.as_ref()) {
            return Err(NodeError::bad_file(
                path,
                "verdict_seed: a sample key; run `verdict keygen`",
            ));
        }
        let transport = decode32(&toml.transport_secret)
            .ok_or_else(|| NodeError::bad_file(path, "transport_secret: not 32 hex bytes"))?;
        Ok(Self {
            seed,
            transport: TransportKey::from_secret(*transport),
        })
    }
}

fn decode32(text: &str) -> Option<Zeroizing<[u8; 32]>> {
    let mut out = Zeroizing::new([0u8; 32]);
    hex::decode_to_slice(text, out.as_mut()).ok()?;
    Some(out)
}
