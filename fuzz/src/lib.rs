//! Shared checks of the verdict fuzz targets.
//!
//! Every decoder is held to the same contract: it never panics, and what it accepts is in
//! canonical form — encoding the decoded value gives back exactly the input bytes, and decoding
//! that again gives the same value. A decoder that accepted two encodings of one value would be
//! a malleability bug (signed envelopes, transcripts and blame evidence hash encodings).

use core::fmt::Debug;

/// Checks the round-trip contract of one decoder on `bytes`; returns the decoded value.
///
/// Panics (a finding for libFuzzer) if an accepted input is not canonical or does not
/// round-trip.
pub fn round_trip<T, E>(
    what: &str,
    bytes: &[u8],
    decode: impl Fn(&[u8]) -> Result<T, E>,
    encode: impl Fn(&T) -> Vec<u8>,
) -> Option<T>
where
    T: PartialEq + Debug,
{
    let value = decode(bytes).ok()?;
    let encoded = encode(&value);
    assert_eq!(encoded, bytes, "{what}: accepted a non-canonical encoding");
    match decode(&encoded) {
        Ok(again) => assert_eq!(again, value, "{what}: decode(encode(x)) != x"),
        Err(_) => panic!("{what}: its own encoding does not decode"),
    }
    Some(value)
}

/// Splits a selector byte and a small parameter byte off the input.
pub fn split(data: &[u8]) -> Option<(u8, u8, &[u8])> {
    match data {
        [a, b, rest @ ..] => Some((*a, *b, rest)),
        _ => None,
    }
}
