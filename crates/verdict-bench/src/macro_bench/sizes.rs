//! Figure 6 analog: client ciphertext size against plaintext size for every ciphersuite.
//!
//! Sizes are exact, not measured: every suite states them through
//! [`Ciphersuite::client_ciphertext_len`], which its tests check against the real encodings.
//! Computing them here rather than timing anything makes the figure cost nothing to produce.

use verdict_dcnet::elgamal::ElGamal;
use verdict_dcnet::pairing::{Chunk16, Chunk24, Pairing};
use verdict_dcnet::{Ciphersuite, HashingGenerator, Xor};
use verdict_group::{P256, Ristretto255};

use super::{MacroBench, MacroConfig, MacroError, MacroReport, MacroRow};

/// Plaintext sizes of the figure: a short message up to 64 KB (the paper's Figure 6 spans a
/// few bytes to 4 KB; the larger sizes show where the per-ciphertext overhead stops mattering).
pub const PLAINTEXT_LENS: [usize; 7] = [16, 64, 256, 1024, 4096, 16384, 65536];

/// A ciphertext length as a function of the slot capacity in bytes.
type SizeFn = fn(usize) -> usize;

/// The suites in the figure, as `(series name, client length, server length)`.
fn suites() -> Vec<(String, SizeFn, SizeFn)> {
    fn entry<C: Ciphersuite>() -> (String, SizeFn, SizeFn) {
        (
            format!("{}/{}", C::ID.construction, C::ID.group),
            C::client_ciphertext_len,
            C::server_ciphertext_len,
        )
    }
    vec![
        entry::<Xor<Ristretto255>>(),
        entry::<HashingGenerator<Ristretto255>>(),
        entry::<HashingGenerator<P256>>(),
        entry::<ElGamal<Ristretto255>>(),
        entry::<ElGamal<P256>>(),
        entry::<Pairing<Chunk16>>(),
        entry::<Pairing<Chunk24>>(),
    ]
}

/// Client and server ciphertext sizes of every suite at `len` bytes of plaintext, as
/// `(suite, client bytes, server bytes)`.
pub fn sizes_at(len: usize) -> Vec<(String, usize, usize)> {
    suites()
        .into_iter()
        .map(|(name, client, server)| (name, client(len), server(len)))
        .collect()
}

/// The Figure 6 macro benchmark (`fig6`): client ciphertext bytes against plaintext bytes,
/// one series per suite.
#[derive(Clone, Copy, Debug, Default)]
pub struct CiphertextSizes;

impl MacroBench for CiphertextSizes {
    fn name(&self) -> &'static str {
        "fig6"
    }

    fn title(&self) -> &'static str {
        "Figure 6: client ciphertext size vs plaintext size per suite"
    }

    fn run(
        &self,
        _config: &MacroConfig,
        _progress: &mut dyn FnMut(&str),
    ) -> Result<MacroReport, MacroError> {
        let mut rows = Vec::new();
        for len in PLAINTEXT_LENS {
            for (series, client, _) in sizes_at(len) {
                rows.push(MacroRow {
                    series,
                    x: len as f64,
                    y: client as f64,
                });
            }
        }
        let notes = sizes_at(4096)
            .into_iter()
            .map(|(s, c, srv)| {
                format!(
                    "{s}: 4096-byte slot -> client {c} B ({:.2}x), server {srv} B",
                    c as f64 / 4096.0
                )
            })
            .collect();
        Ok(MacroReport {
            name: self.name().to_owned(),
            title: self.title().to_owned(),
            x_label: "plaintext (bytes)".to_owned(),
            y_label: "client ciphertext (bytes)".to_owned(),
            log_x: true,
            log_y: true,
            rows,
            notes,
        })
    }
}

#[cfg(test)]
#[allow(clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn sizes_grow_with_the_plaintext_and_exceed_it() {
        let report = CiphertextSizes
            .run(&MacroConfig::default(), &mut |_| {})
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(report.rows.len(), PLAINTEXT_LENS.len() * suites().len());
        for (name, ..) in suites() {
            let ys: Vec<f64> = report
                .rows
                .iter()
                .filter(|r| r.series == name)
                .map(|r| r.y)
                .collect();
            assert_eq!(ys.len(), PLAINTEXT_LENS.len(), "{name}");
            assert!(ys.windows(2).all(|w| w[0] <= w[1]), "{name}: {ys:?}");
        }
        for r in &report.rows {
            assert!(r.y > r.x, "{}: {} B carries {} B", r.series, r.y, r.x);
        }
    }

    #[test]
    fn xor_costs_a_fixed_header_and_hashing_generator_about_one_element_per_30_bytes() {
        let at = |len: usize, suite: &str| {
            sizes_at(len)
                .into_iter()
                .find(|(s, ..)| s == suite)
                .map(|(_, c, _)| c)
                .unwrap_or_else(|| panic!("no {suite}"))
        };
        // XOR: the plaintext plus a constant (length header and the pseudonym signature).
        assert_eq!(
            at(4096, "xor/ristretto255") - 4096,
            at(16, "xor/ristretto255") - 16
        );
        // Hashing-generator: L + O(1) 32-byte elements, so below 1.2x for large slots.
        let hg = at(65536, "hashing-generator/ristretto255") as f64;
        assert!(hg / 65536.0 < 1.2, "{hg}");
    }
}
