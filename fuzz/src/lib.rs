//! Shared checks of the verdict fuzz targets.
//!
//! Every decoder is held to the same contract: it never panics, and what it accepts is in
//! canonical form — encoding the decoded value gives back exactly the input bytes, and decoding
//! that again gives the same value. A decoder that accepted two encodings of one value would be
//! a malleability bug (signed envelopes, transcripts and blame evidence hash encodings).

use core::fmt::Debug;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, recording the largest single request since the last reset, so each
/// decode can be held to a memory bound proportional to its input (issue 19, item 5).
struct Tracking;

static LARGEST: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every method forwards to `System` with the caller's arguments unchanged; the only
// addition is an atomic maximum, which cannot affect the allocation.
unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded as is (see above).
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded as is.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded as is.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LARGEST.fetch_max(new_size, Ordering::Relaxed);
        // SAFETY: forwarded as is.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Tracking = Tracking;

/// The largest single allocation a decoder may make for an input of `len` bytes: a constant
/// for fixed-size scratch space plus a small multiple of the input (decoded points take a few
/// times their encoded size in memory, e.g. projective BLS12-381 G2 coordinates).
pub fn allocation_bound(len: usize) -> usize {
    64 * 1024 + 32 * len
}

/// Checks the contract of one decoder on `bytes`; returns the decoded value.
///
/// Panics (a finding for libFuzzer) if decoding allocates more than [`allocation_bound`] in one
/// request, or if an accepted input is not canonical or does not round-trip.
pub fn round_trip<T, E>(
    what: &str,
    bytes: &[u8],
    decode: impl Fn(&[u8]) -> Result<T, E>,
    encode: impl Fn(&T) -> Vec<u8>,
) -> Option<T>
where
    T: PartialEq + Debug,
{
    let decoded = measured(what, bytes.len(), || decode(bytes));
    let value = decoded.ok()?;
    let encoded = encode(&value);
    assert_eq!(encoded, bytes, "{what}: accepted a non-canonical encoding");
    match decode(&encoded) {
        Ok(again) => assert_eq!(again, value, "{what}: decode(encode(x)) != x"),
        Err(_) => panic!("{what}: its own encoding does not decode"),
    }
    Some(value)
}

/// Runs `decode` (on an input of `len` bytes) and panics if it made a single allocation
/// larger than [`allocation_bound`]`(len)`.
pub fn measured<T>(what: &str, len: usize, decode: impl FnOnce() -> T) -> T {
    LARGEST.store(0, Ordering::Relaxed);
    let out = decode();
    let largest = LARGEST.load(Ordering::Relaxed);
    assert!(
        largest <= allocation_bound(len),
        "{what}: a {len}-byte input made a {largest}-byte allocation"
    );
    out
}

/// Splits a selector byte and a small parameter byte off the input.
pub fn split(data: &[u8]) -> Option<(u8, u8, &[u8])> {
    match data {
        [a, b, rest @ ..] => Some((*a, *b, rest)),
        _ => None,
    }
}
