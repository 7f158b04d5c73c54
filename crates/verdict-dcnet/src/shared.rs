//! Small steps every suite implementation takes the same way: checking a participant's key
//! against the roster, the (empty) set-up of suites without one, and pairing a reveal's server
//! ciphertexts with their servers.

use verdict_group::Group;
use verdict_nizk::{SigningKey, VerifyingKey};

use crate::error::{DcError, SetupError};
use crate::suite::{Ciphersuite, Roster};

/// Checks that `key` is the secret half of the roster entry `expected`.
pub(crate) fn check_roster_key<G: Group>(
    key: &SigningKey<G>,
    expected: &VerifyingKey<G>,
) -> Result<(), DcError> {
    if key.verifying_key() == expected {
        Ok(())
    } else {
        Err(DcError::InvalidParameters(
            "secret key does not match the roster",
        ))
    }
}

/// `combine_setup` of a suite without set-up: only the message counts are checked.
pub(crate) fn combine_no_setup<C: Ciphersuite>(
    roster: &Roster<C>,
    clients: &[()],
    servers: &[()],
) -> Result<(), SetupError> {
    for (expected, actual) in [
        (roster.num_clients(), clients.len()),
        (roster.num_servers(), servers.len()),
    ] {
        if expected != actual {
            return Err(SetupError::Count { expected, actual });
        }
    }
    Ok(())
}

/// The `M` server ciphertexts of a reveal, paired with their server index; fails unless there
/// is exactly one per server of the roster.
pub(crate) fn indexed_servers<'a, C: Ciphersuite, T>(
    roster: &Roster<C>,
    servers: &[&'a T],
) -> Result<Vec<(u32, &'a T)>, DcError> {
    let m = roster.num_servers();
    if servers.len() != m {
        return Err(DcError::ServerCount {
            expected: m,
            actual: servers.len(),
        });
    }
    Ok(servers
        .iter()
        .enumerate()
        .map(|(j, s)| (j as u32, *s))
        .collect())
}
