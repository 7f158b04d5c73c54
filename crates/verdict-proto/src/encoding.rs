//! Decodable encodings of the configuration a deployment stores in files: the [`Policy`]
//! (its canonical encoding, the one hashed into the session id), a roster [`Member`], and a
//! whole [`GroupConfig`] (versioned).
//!
//! Decoding never trusts its input: every count is bounded by what is left, every point is
//! validated by `verdict-group`'s reader, and a [`GroupConfig`] is [`GroupConfig::validate`]d
//! before it is returned. Errors name the field that is wrong.

use core::time::Duration;

use verdict_dcnet::ServerId;
use verdict_nizk::{KeyRegistration, VerifyingKey};

use crate::config::{GroupConfig, Member, Registered};
use crate::error::ConfigError;
use crate::policy::{Mode, Policy, Verification, WindowPolicy};
use crate::suite::ProtoSuite;
use crate::wire::{Reader, Writer};

/// First bytes of an encoded [`GroupConfig`].
const GROUP_MAGIC: &[u8; 13] = b"verdict-group";
/// Version of the [`GroupConfig`] encoding.
const GROUP_VERSION: u8 = 1;

fn bad(field: impl Into<String>, reason: &'static str) -> ConfigError {
    ConfigError::Decode {
        field: field.into(),
        reason,
    }
}

fn codec<E>(field: impl Into<String>) -> impl FnOnce(E) -> ConfigError {
    let field = field.into();
    move |_| bad(field, "truncated or malformed")
}

impl WindowPolicy {
    fn read(r: &mut Reader<'_>, name: &str) -> Result<Self, ConfigError> {
        let fraction = r
            .u32()
            .map_err(codec(format!("{name}.fraction_permille")))?;
        let fraction_permille = u16::try_from(fraction)
            .ok()
            .filter(|f| *f <= 1000)
            .ok_or_else(|| bad(format!("{name}.fraction_permille"), "above 1000"))?;
        let multiplier_percent = r
            .u32()
            .map_err(codec(format!("{name}.multiplier_percent")))?;
        let deadline = match r.u8().map_err(codec(format!("{name}.deadline")))? {
            0 => None,
            1 => Some(Duration::from_micros(
                r.u64().map_err(codec(format!("{name}.deadline")))?,
            )),
            _ => return Err(bad(format!("{name}.deadline"), "flag is neither 0 nor 1")),
        };
        Ok(Self {
            fraction_permille,
            multiplier_percent,
            deadline,
        })
    }
}

impl Policy {
    /// Decodes [`Policy::to_bytes`] and validates the result.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ConfigError> {
        let mut r = Reader::new(bytes);
        let policy = Self::read(&mut r)?;
        r.finish().map_err(|_| bad("policy", "trailing bytes"))?;
        Ok(policy)
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, ConfigError> {
        let hybrid = r.u8().map_err(codec("policy.mode"))?;
        let verification = match r.u8().map_err(codec("policy.mode"))? {
            0 => Verification::Eager,
            1 => Verification::Lazy,
            _ => return Err(bad("policy.mode", "unknown verification")),
        };
        let mode = match hybrid {
            0 => Mode::Verifiable(verification),
            1 => Mode::Hybrid(verification),
            _ => return Err(bad("policy.mode", "unknown mode")),
        };
        let window = WindowPolicy::read(r, "policy.window")?;
        let setup_window = WindowPolicy::read(r, "policy.setup_window")?;
        let mut u32_field = |name: &'static str| r.u32().map_err(codec(name));
        let default_len = u32_field("policy.default_len")?;
        let max_len = u32_field("policy.max_len")?;
        let idle_rounds = u32_field("policy.idle_rounds")?;
        let reopen_per_round = u32_field("policy.reopen_per_round")?;
        let initially_open = u32_field("policy.initially_open")?;
        let rebuttal_timeout =
            Duration::from_micros(r.u64().map_err(codec("policy.rebuttal_timeout"))?);
        let server_timeout =
            Duration::from_micros(r.u64().map_err(codec("policy.server_timeout"))?);
        let policy = Self {
            mode,
            window,
            setup_window,
            default_len,
            max_len,
            idle_rounds,
            reopen_per_round,
            initially_open,
            rebuttal_timeout,
            server_timeout,
        };
        policy.validate()?;
        Ok(policy)
    }
}

impl<S: ProtoSuite> Member<S> {
    /// The encoding: for each key use in [`crate::KeyUse::ALL`] order, a presence flag, then
    /// the key and its registration proof.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        self.write(&mut w);
        w.finish()
    }

    fn write(&self, w: &mut Writer) {
        for r in [
            Some(&self.signing),
            Some(&self.dcnet),
            Some(&self.xor),
            self.shuffle.as_ref(),
        ] {
            match r {
                Some(r) => w
                    .u8(1)
                    .bytes(&r.key.to_bytes())
                    .bytes(&r.registration.to_bytes()),
                None => w.u8(0),
            };
        }
    }

    /// Decodes [`Member::to_bytes`] (keys are validated points; the registration proofs are
    /// checked by [`GroupConfig::validate`], which needs the member's place in the roster).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ConfigError> {
        let mut r = Reader::new(bytes);
        let m = Self::read(&mut r, "member")?;
        r.finish().map_err(|_| bad("member", "trailing bytes"))?;
        Ok(m)
    }

    fn read(r: &mut Reader<'_>, name: &str) -> Result<Self, ConfigError> {
        let mut one = |use_: &str| -> Result<Option<Registered<S::G>>, ConfigError> {
            let field = format!("{name}.{use_}");
            match r.u8().map_err(codec(field.clone()))? {
                0 => Ok(None),
                1 => {
                    let key = VerifyingKey::from_bytes(r.bytes().map_err(codec(field.clone()))?)
                        .map_err(|_| bad(field.clone(), "invalid public key"))?;
                    let registration =
                        KeyRegistration::from_bytes(r.bytes().map_err(codec(field.clone()))?)
                            .map_err(|_| bad(field.clone(), "invalid registration proof"))?;
                    Ok(Some(Registered { key, registration }))
                }
                _ => Err(bad(field, "flag is neither 0 nor 1")),
            }
        };
        let signing = one("signing")?.ok_or_else(|| bad(format!("{name}.signing"), "missing"))?;
        let dcnet = one("dcnet")?.ok_or_else(|| bad(format!("{name}.dcnet"), "missing"))?;
        let xor = one("xor")?.ok_or_else(|| bad(format!("{name}.xor"), "missing"))?;
        let shuffle = one("shuffle")?;
        Ok(Self {
            signing,
            dcnet,
            xor,
            shuffle,
        })
    }
}

impl<S: ProtoSuite> GroupConfig<S> {
    /// The versioned encoding: magic, version, suite id, policy, nonce, servers, clients with
    /// their upstream servers.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.raw(GROUP_MAGIC)
            .u8(GROUP_VERSION)
            .bytes(&S::ID.to_bytes())
            .bytes(&self.policy.to_bytes())
            .raw(&self.nonce);
        w.count(self.servers.len());
        for m in &self.servers {
            m.write(&mut w);
        }
        w.count(self.clients.len());
        for (m, up) in self.clients.iter().zip(&self.upstream) {
            m.write(&mut w);
            w.u32(up.0);
        }
        w.finish()
    }

    /// Decodes [`GroupConfig::to_bytes`] for suite `S` and validates the result (every
    /// registration proof, sizes, policy).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ConfigError> {
        let mut r = Reader::new(bytes);
        if r.raw(GROUP_MAGIC.len()).ok() != Some(GROUP_MAGIC.as_slice()) {
            return Err(bad("magic", "not a verdict group configuration"));
        }
        match r.u8().map_err(codec("version"))? {
            GROUP_VERSION => {}
            _ => return Err(bad("version", "unsupported version")),
        }
        if r.bytes().map_err(codec("suite"))? != S::ID.to_bytes().as_slice() {
            return Err(bad("suite", "configuration is for another suite"));
        }
        let policy = Policy::from_bytes(r.bytes().map_err(codec("policy"))?)?;
        let nonce = r.array::<32>().map_err(codec("nonce"))?;
        // Counts are bounded by the input's length (the reader checks).
        let servers_n = r.count().map_err(codec("servers"))?;
        let servers = (0..servers_n)
            .map(|j| Member::read(&mut r, &format!("servers[{j}]")))
            .collect::<Result<Vec<_>, _>>()?;
        let clients_n = r.count().map_err(codec("clients"))?;
        // Grown as members decode (a member in memory is far larger than its count byte).
        let mut clients = Vec::new();
        let mut upstream = Vec::new();
        for i in 0..clients_n {
            clients.push(Member::read(&mut r, &format!("clients[{i}]"))?);
            upstream.push(ServerId(
                r.u32().map_err(codec(format!("clients[{i}].upstream")))?,
            ));
        }
        r.finish().map_err(|_| bad("group", "trailing bytes"))?;
        let config = Self {
            policy,
            nonce,
            servers,
            clients,
            upstream,
        };
        config.validate()?;
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;
    use verdict_dcnet::HashingGenerator;
    use verdict_group::Ristretto255;

    type Hg = HashingGenerator<Ristretto255>;

    #[test]
    fn policy_round_trips_and_names_bad_fields() {
        let p = Policy {
            mode: Mode::Hybrid(Verification::Lazy),
            window: WindowPolicy::dissent(900, 50, Duration::from_secs(3)),
            ..Policy::default()
        };
        assert_eq!(Policy::from_bytes(&p.to_bytes()), Ok(p.clone()));
        let mut bytes = p.to_bytes();
        bytes[1] = 7;
        let err = Policy::from_bytes(&bytes).unwrap_err();
        assert!(err.to_string().contains("policy.mode"), "{err}");
        let bytes = p.to_bytes();
        let err = Policy::from_bytes(&bytes[..bytes.len() - 3]).unwrap_err();
        assert!(err.to_string().contains("policy.server_timeout"), "{err}");
    }

    #[test]
    fn group_round_trips_and_rejects_tampering() {
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        let (config, _, _) = crate::generate_group::<Hg, _>(Policy::default(), 2, 3, &mut rng);
        let bytes = config.to_bytes();
        let back = GroupConfig::<Hg>::from_bytes(&bytes).unwrap();
        assert_eq!(back.session_id(), config.session_id());
        assert_eq!(back.to_bytes(), bytes);
        for cut in [0, 10, bytes.len() / 2, bytes.len() - 1] {
            assert!(GroupConfig::<Hg>::from_bytes(&bytes[..cut]).is_err());
        }
        // A byte flipped in the last registration proof breaks it.
        let mut flipped = bytes.clone();
        let at = flipped.len() - 10;
        flipped[at] ^= 1;
        assert!(GroupConfig::<Hg>::from_bytes(&flipped).is_err());
        let member = Member::<Hg>::from_bytes(&config.clients[1].to_bytes()).unwrap();
        assert_eq!(member.signing.key, config.clients[1].signing.key);
    }
}
