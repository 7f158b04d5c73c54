//! Which ciphersuite a group runs, chosen at run time and dispatched to the generic code.

use serde::{Deserialize, Serialize};

/// A ciphersuite a group can run (over Ristretto255).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum SuiteChoice {
    /// The hashing-generator verifiable DC-net (eager, lazy or hybrid).
    Hashing,
    /// The ElGamal verifiable DC-net (eager only).
    Elgamal,
}

/// The hashing-generator suite type.
pub type Hashing = verdict_dcnet::HashingGenerator<verdict_group::Ristretto255>;
/// The ElGamal suite type.
pub type Elgamal = verdict_dcnet::elgamal::ElGamal<verdict_group::Ristretto255>;

/// Runs `$body` with the type alias `$S` bound to the suite `$choice` names.
#[macro_export]
macro_rules! with_suite {
    ($choice:expr, $S:ident => $body:expr) => {
        match $choice {
            $crate::suite::SuiteChoice::Hashing => {
                type $S = $crate::suite::Hashing;
                $body
            }
            $crate::suite::SuiteChoice::Elgamal => {
                type $S = $crate::suite::Elgamal;
                $body
            }
        }
    };
}
