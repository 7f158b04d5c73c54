//! The attacks of the security review, each as a regression test through the public API (the
//! simulator, its tamper hook, `inject` and the participants' signing keys). Each test was
//! written against the code before its fix and failed there (see docs/SECURITY.md). One module
//! per group of attacks, numbered as in SECURITY.md's table.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use core::time::Duration;
use std::sync::{Arc, Mutex};

use rand_chacha::ChaCha20Rng;
use rand_chacha::rand_core::SeedableRng;
use verdict_dcnet::elgamal::ElGamal;
use verdict_dcnet::{ElementSum, HashingGenerator};
use verdict_group::{Group, Ristretto255, SecretScalar};
use verdict_proto::blame::{BlameBits, Rebuttal, RebuttalRequest, Verdict};
use verdict_proto::sim::{Adversary, Simulator};
use verdict_proto::wire::{Envelope, Kind, Reader, Writer, write_byte_list};
use verdict_proto::{
    ClientId, Event, ExclusionReason, Mode, Party, Policy, ServerFault, ServerId, Verification,
    WindowPolicy,
};

use crate::common;
use common::{excluded_by, halts_seen_by, policy, quiet_net, reseal};

type G = Ristretto255;
type Hg = HashingGenerator<G>;

/// Every slot stays open (no idle closing), so a client's `k`-th slot ciphertext is slot `k`'s.
fn all_open(mode: Mode) -> Policy {
    Policy {
        idle_rounds: 1_000,
        ..policy(mode)
    }
}

fn rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

fn session_of(sim: &Simulator<Hg>) -> [u8; 32] {
    sim.server(0).unwrap().session().0
}

mod blame;
mod buffers;
mod keys;
mod left_out;
mod setup;
mod slots;
