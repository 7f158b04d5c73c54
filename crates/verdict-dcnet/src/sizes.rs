//! Figure 6 analog: client and server ciphertext size against plaintext size, per suite.
//!
//! [`figure6_rows`] is the data source of the plot (the bench driver calls it);
//! `cargo run -p verdict-dcnet --example figure6` prints it as CSV. Sizes come from
//! [`Ciphersuite::client_ciphertext_len`] / [`Ciphersuite::server_ciphertext_len`], which the
//! tests check against real encodings.

use verdict_group::{P256, Ristretto255};

use crate::elgamal::ElGamal;
use crate::pairing::{Chunk16, Chunk24, Pairing};
use crate::{Ciphersuite, HashingGenerator, Xor};

/// Slot capacities (plaintext bytes) of the Figure 6 rows: 1 byte up to 64 KiB.
pub const FIGURE6_LENS: &[usize] = &[1, 26, 64, 256, 1024, 4096, 16384, 65536];

/// One point of Figure 6: the sizes of every client and server ciphertext of a slot.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SizeRow {
    /// The construction (`SuiteId::construction`), e.g. `hashing-generator`.
    pub suite: &'static str,
    /// The group (`SuiteId::group`), e.g. `ristretto255`.
    pub group: &'static str,
    /// The full suite id, e.g. `verdict/hashing-generator/ristretto255/v2`.
    pub suite_id: String,
    /// Slot capacity in plaintext bytes.
    pub plaintext_len: usize,
    /// Bytes of every client ciphertext of the slot (cover or owner).
    pub client_ciphertext_len: usize,
    /// Bytes of every server ciphertext of the slot.
    pub server_ciphertext_len: usize,
}

impl SizeRow {
    /// Client ciphertext bytes per plaintext byte.
    pub fn client_expansion(&self) -> f64 {
        self.client_ciphertext_len as f64 / self.plaintext_len.max(1) as f64
    }
    /// Server ciphertext bytes per plaintext byte.
    pub fn server_expansion(&self) -> f64 {
        self.server_ciphertext_len as f64 / self.plaintext_len.max(1) as f64
    }
}

/// The rows of suite `C` for each capacity in `lens`.
pub fn rows<C: Ciphersuite>(lens: &[usize]) -> Vec<SizeRow> {
    lens.iter()
        .map(|&len| SizeRow {
            suite: C::ID.construction,
            group: C::ID.group,
            suite_id: C::ID.to_string(),
            plaintext_len: len,
            client_ciphertext_len: C::client_ciphertext_len(len),
            server_ciphertext_len: C::server_ciphertext_len(len),
        })
        .collect()
}

/// Figure 6 for every suite and group at [`FIGURE6_LENS`]: hashing-generator and ElGamal over
/// ristretto255 and P-256, pairing on BLS12-381 (16- and 24-bit chunks), XOR.
pub fn figure6_rows() -> Vec<SizeRow> {
    let l = FIGURE6_LENS;
    [
        rows::<HashingGenerator<Ristretto255>>(l),
        rows::<HashingGenerator<P256>>(l),
        rows::<ElGamal<Ristretto255>>(l),
        rows::<ElGamal<P256>>(l),
        rows::<Pairing<Chunk16>>(l),
        rows::<Pairing<Chunk24>>(l),
        rows::<Xor<Ristretto255>>(l),
    ]
    .concat()
}
