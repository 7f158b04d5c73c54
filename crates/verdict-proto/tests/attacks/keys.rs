//! One key per use (attack 1): the registrations, and the lazy ElGamal configuration that would
//! turn a server into a decryption oracle.

use super::*;

// ------------------------------------------------------------------------------------------
// 1. ElGamal is eager-only: a lazy configuration must be refused.

#[test]
fn lazy_elgamal_configuration_is_refused() {
    for mode in [
        Mode::Verifiable(Verification::Lazy),
        Mode::Hybrid(Verification::Lazy),
    ] {
        let built = Simulator::<ElGamal<G>>::new(policy(mode), 2, 3, quiet_net(), 1);
        assert!(
            matches!(
                built,
                Err(verdict_proto::ConfigError::EagerOnlySuite { .. })
            ),
            "{mode:?} accepted for an eager-only suite"
        );
    }
    // Eager stays allowed.
    assert!(
        Simulator::<ElGamal<G>>::new(
            policy(Mode::Verifiable(Verification::Eager)),
            2,
            3,
            quiet_net(),
            1
        )
        .is_ok()
    );
}

/// One key per use: the shuffle decryption key, the DC-net key and the signing key differ, and
/// a registration proves knowledge for one use only.
#[test]
fn every_member_registers_one_key_per_use() {
    use verdict_proto::{ConfigError, KeyUse, Registered};
    let sim = Simulator::<ElGamal<G>>::new(
        policy(Mode::Verifiable(Verification::Eager)),
        2,
        3,
        quiet_net(),
        2,
    )
    .unwrap();
    let config = sim.config().clone();
    let server = &config.servers[0];
    let uses = [KeyUse::Signing, KeyUse::DcNet, KeyUse::Xor, KeyUse::Shuffle];
    for (i, a) in uses.iter().enumerate() {
        for b in &uses[i + 1..] {
            assert_ne!(
                server.key(*a),
                server.key(*b),
                "{a:?} and {b:?} share a key"
            );
        }
    }
    assert!(config.clients[0].shuffle.is_none());
    // A registration for one use is not one for another.
    let mut swapped = config.clone();
    let s = &mut swapped.servers[1];
    core::mem::swap(
        &mut s.dcnet.registration,
        &mut s.shuffle.as_mut().unwrap().registration,
    );
    core::mem::swap(&mut s.dcnet.key, &mut s.shuffle.as_mut().unwrap().key);
    assert_eq!(
        swapped.validate(),
        Err(ConfigError::BadRegistration {
            member: Party::Server(ServerId(1))
        })
    );
    // A member that registers one key for two uses (validly, it knows the secret) is refused.
    let mut reused = config.clone();
    let keys = sim.secret_keys(Party::Server(ServerId(1))).unwrap();
    reused.servers[1].shuffle = Some(Registered::prove(
        keys.dcnet(),
        Party::Server(ServerId(1)),
        KeyUse::Shuffle,
        &config.nonce,
        &mut rng(3),
    ));
    assert_eq!(
        reused.validate(),
        Err(ConfigError::DuplicateKey {
            member: Party::Server(ServerId(1))
        })
    );
}
