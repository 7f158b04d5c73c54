//! The reader's and writer's unit tests: round trips, hostile counts, offsets.
#![allow(clippy::unwrap_used)]

use super::*;
use crate::Ristretto255;

type S = <Ristretto255 as Group>::Scalar;

#[test]
fn integers_and_byte_strings_round_trip() {
    let mut w = Writer::new();
    w.u8(7).u32(0x0102_0304).u64(u64::MAX - 1).bytes(b"abc");
    w.byte_list(&[b"x".to_vec(), Vec::new()]).raw(b"TAG!");
    let bytes = w.finish();
    let mut r = Reader::new(&bytes);
    assert_eq!(r.u8().unwrap(), 7);
    assert_eq!(r.u32().unwrap(), 0x0102_0304);
    assert_eq!(r.u64().unwrap(), u64::MAX - 1);
    assert_eq!(r.bytes().unwrap(), b"abc");
    assert_eq!(r.byte_slices().unwrap(), vec![&b"x"[..], &b""[..]]);
    r.tag(b"TAG!").unwrap();
    assert_eq!(r.since(bytes.len() - 4), b"TAG!");
    r.finish().unwrap();
}

/// The reader's position accessors and the copying list reader: `offset` counts what was
/// read, `is_empty` says whether anything is left, `rest` takes exactly the unread tail,
/// `byte_list` copies what `byte_slices` would view.
#[test]
fn positions_rest_and_copied_lists() {
    let mut w = Writer::new();
    w.u32(9)
        .byte_list(&[b"ab".to_vec(), b"c".to_vec()])
        .raw(b"tail");
    let bytes = w.finish();
    let mut r = Reader::new(&bytes);
    assert_eq!((r.offset(), r.is_empty()), (0, false));
    r.u32().unwrap();
    assert_eq!(r.offset(), 4);
    assert_eq!(r.byte_list().unwrap(), vec![b"ab".to_vec(), b"c".to_vec()]);
    assert_eq!(r.offset(), bytes.len() - 4);
    assert!(!r.is_empty());
    assert_eq!(r.rest(), b"tail");
    assert_eq!(
        (r.offset(), r.is_empty(), r.rest()),
        (bytes.len(), true, &b""[..])
    );
    r.finish().unwrap();
}

#[test]
fn writer_length() {
    let mut w = Writer::with_capacity(64);
    assert_eq!((w.len(), w.is_empty()), (0, true));
    w.u32(1).bytes(b"xy");
    assert_eq!((w.len(), w.is_empty()), (10, false));
    let copy = w.clone();
    assert_eq!(w.finish(), [1, 0, 0, 0, 2, 0, 0, 0, b'x', b'y']);
    assert!(w.is_empty(), "finish leaves the writer empty");
    assert_eq!(copy.into_bytes(), [1, 0, 0, 0, 2, 0, 0, 0, b'x', b'y']);
}

#[test]
fn hostile_counts_are_bounded_by_the_input() {
    let mut w = Writer::new();
    w.u32(u32::MAX).raw(&[0; 8]);
    let bytes = w.finish();
    assert_eq!(
        Reader::new(&bytes).count(),
        Err(CodecError::Count {
            offset: 0,
            count: u64::from(u32::MAX),
            max: 8
        })
    );
    // Two list items need at least 8 bytes; 7 are left.
    let bytes = [2, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7];
    assert!(matches!(
        Reader::new(&bytes).byte_slices(),
        Err(CodecError::Count { max: 1, .. })
    ));
    let bytes = [3, 0, 0, 0, 1, 2, 3];
    assert_eq!(
        Reader::new(&bytes).with_max_count(2).bytes(),
        Err(CodecError::Count {
            offset: 0,
            count: 3,
            max: 2
        })
    );
    assert_eq!(Reader::new(&bytes).bytes().unwrap(), &[1, 2, 3]);
    // A caller-supplied count larger than the input allocates nothing and fails.
    // A count whose byte length overflows names the largest count that would not.
    assert_eq!(
        Reader::new(&bytes).points::<Ristretto255>("P", usize::MAX / 2),
        Err(CodecError::Count {
            offset: 0,
            count: (usize::MAX / 2) as u64,
            max: (usize::MAX / 32) as u64
        })
    );
    assert!(matches!(
        Reader::new(&bytes).scalars::<S>("s", 1 << 20),
        Err(CodecError::Truncated {
            offset: 0,
            needed: 32,
            available: 7
        })
    ));
}

#[test]
fn truncation_trailing_bytes_and_tags_are_typed() {
    let mut r = Reader::new(&[1, 2, 3]);
    assert_eq!(
        r.u32(),
        Err(CodecError::Truncated {
            offset: 0,
            needed: 4,
            available: 3
        })
    );
    assert_eq!(r.u8().unwrap(), 1);
    assert_eq!(
        r.finish(),
        Err(CodecError::TrailingBytes {
            offset: 1,
            extra: 2
        })
    );
    assert_eq!(r.tag(b"ab"), Err(CodecError::BadTag { offset: 1 }));
    assert!(r.is_empty());
}

#[test]
fn points_and_scalars_are_validated_with_their_offsets() {
    let g = Ristretto255::generator();
    let s = S::from_u64(5);
    let mut w = Writer::new();
    w.point(&g).point(&Ristretto255::identity()).scalar(&s);
    let mut bytes = w.finish();
    let mut r = Reader::new(&bytes);
    let (points, raw) = r.points_with_bytes::<Ristretto255>("P", 2).unwrap();
    assert_eq!(points, vec![g, Ristretto255::identity()]);
    assert_eq!(raw, &bytes[..64]);
    assert_eq!(r.scalars::<S>("s", 1).unwrap(), vec![s]);
    r.finish().unwrap();
    assert!(matches!(
        Reader::new(&bytes[32..]).point_nonidentity::<Ristretto255>("Q"),
        Err(CodecError::Invalid {
            field: "Q",
            offset: 0,
            source: DecodeError::Identity
        })
    ));
    // An invalid point is reported at its own offset, counted from where the list began.
    let mut bad = vec![0u8; 4];
    bad.extend_from_slice(&bytes[..64]);
    bad[4 + 32 + 31] = 0xff;
    let mut r = Reader::new(&bad);
    r.u32().unwrap();
    assert!(matches!(
        r.points_with_bytes::<Ristretto255>("P", 2),
        Err(CodecError::Invalid {
            field: "P",
            offset: 36,
            ..
        })
    ));
    bytes[64 + 31] = 0xff;
    let mut r = Reader::new(&bytes);
    r.points::<Ristretto255>("P", 2).unwrap();
    assert!(matches!(
        r.scalar::<S>("s"),
        Err(CodecError::Invalid {
            field: "s",
            offset: 64,
            ..
        })
    ));
}

/// Long lists decode in parallel chunks (with the `parallel` feature), and the answer is the
/// one reading point by point gives, at 1 and 2 threads: the points in order; the first invalid
/// point at its offset, even with a later one invalid too; a truncated list reported where the
/// serial loop stops (an invalid point before the cut wins, as it is read first).
#[test]
fn long_point_lists_decode_as_one_by_one() {
    let n = 300;
    let mut w = Writer::new();
    w.u32(7);
    let mut p = Ristretto255::generator();
    for _ in 0..n {
        w.point(&p);
        p += Ristretto255::generator();
    }
    let good = w.finish();
    let serial = |bytes: &[u8], n: usize| -> Result<Vec<Ristretto255>, CodecError> {
        let mut r = Reader::new(bytes);
        r.u32()?;
        (0..n).map(|_| r.point::<Ristretto255>("P")).collect()
    };
    let items = |bytes: &[u8], n: usize| -> Result<Vec<Ristretto255>, CodecError> {
        let mut r = Reader::new(bytes);
        r.u32()?;
        r.decode_items(n, 32, |offset, item| {
            Ristretto255::from_bytes(item).map_err(|source| CodecError::Invalid {
                field: "P",
                offset,
                source,
            })
        })
    };
    let listed = |bytes: &[u8], n: usize| -> Result<Vec<Ristretto255>, CodecError> {
        let mut r = Reader::new(bytes);
        r.u32()?;
        r.points::<Ristretto255>("P", n)
    };
    let mut bad = good.clone();
    bad[4 + 32 * 100 + 31] = 0xff;
    bad[4 + 32 * 250 + 31] = 0xff;
    let cases: [(&[u8], usize); 5] = [
        (&good, n),
        (&bad, n),
        (&good[..4 + 32 * 200 + 5], n),
        (&bad[..4 + 32 * 200], n),
        (&good, 0),
    ];
    for threads in [1, 2] {
        for (k, &(bytes, n)) in cases.iter().enumerate() {
            let expected = serial(bytes, n);
            let got = crate::par::with_threads(threads, || items(bytes, n)).unwrap();
            assert_eq!(
                format!("{got:?}"),
                format!("{expected:?}"),
                "case {k}, {threads} thread(s)"
            );
        }
        let all = crate::par::with_threads(threads, || listed(&good, n)).unwrap();
        assert_eq!(all, serial(&good, n));
        let first = crate::par::with_threads(threads, || listed(&bad, n)).unwrap();
        assert_eq!(format!("{first:?}"), format!("{:?}", serial(&bad, n)));
    }
    assert!(matches!(
        serial(&bad, n),
        Err(CodecError::Invalid {
            field: "P",
            offset: 3204,
            ..
        })
    ));
    assert!(matches!(
        serial(&good[..4 + 32 * 200 + 5], n),
        Err(CodecError::Truncated {
            offset: 6404,
            needed: 32,
            available: 5
        })
    ));
}

proptest::proptest! {
    /// Any sequence of reads over any input returns values or typed errors, never panics,
    /// and never moves past the end.
    #[test]
    fn arbitrary_reads_never_panic(
        bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..200),
        ops in proptest::collection::vec(0u8..12, 0..24),
        max in 0usize..64,
    ) {
        let mut r = Reader::new(&bytes).with_max_count(max);
        for op in ops {
            let _ = match op {
                0 => r.u8().map(drop),
                1 => r.u32().map(drop),
                2 => r.u64().map(drop),
                3 => r.bytes().map(drop),
                4 => r.byte_slices().map(drop),
                5 => r.byte_list().map(drop),
                6 => r.count().map(drop),
                7 => r.point::<Ristretto255>("P").map(drop),
                8 => r.points_with_bytes::<Ristretto255>("P", max).map(drop),
                9 => r.scalars::<S>("s", max).map(drop),
                10 => r.tag(b"ab"),
                _ => r.finish(),
            };
            proptest::prop_assert!(r.offset() <= bytes.len());
        }
    }
}

/// `scalars` decodes a long list in parallel chunks and answers as reading scalar by scalar
/// does, at 1 and 2 threads: the first non-canonical scalar at its offset (a later one
/// invalid too), a truncation where the serial loop stops, an invalid scalar before the cut
/// first.
#[test]
fn long_scalar_lists_decode_as_one_by_one() {
    let n = 300;
    let mut w = Writer::new();
    w.u32(7);
    for i in 0..n {
        w.scalar(&S::from_u64(1000 + i));
    }
    let good = w.finish();
    let serial = |bytes: &[u8], n: usize| -> Result<Vec<S>, CodecError> {
        let mut r = Reader::new(bytes);
        r.u32()?;
        (0..n).map(|_| r.scalar::<S>("s")).collect()
    };
    let listed = |bytes: &[u8], n: usize| -> Result<Vec<S>, CodecError> {
        let mut r = Reader::new(bytes);
        r.u32()?;
        r.scalars::<S>("s", n)
    };
    let mut bad = good.clone();
    bad[4 + 32 * 100 + 31] = 0xff;
    bad[4 + 32 * 250 + 31] = 0xff;
    let cases: [(&[u8], usize); 5] = [
        (&good, n as usize),
        (&bad, n as usize),
        (&good[..4 + 32 * 200 + 5], n as usize),
        (&bad[..4 + 32 * 200], n as usize),
        (&good, 0),
    ];
    for threads in [1, 2] {
        for (k, &(bytes, n)) in cases.iter().enumerate() {
            let got = crate::par::with_threads(threads, || listed(bytes, n)).unwrap();
            assert_eq!(
                format!("{got:?}"),
                format!("{:?}", serial(bytes, n)),
                "case {k}, {threads} thread(s)"
            );
        }
    }
    assert!(matches!(
        serial(&bad, n as usize),
        Err(CodecError::Invalid {
            field: "s",
            offset: 3204,
            ..
        })
    ));
    assert_eq!(listed(&good, n as usize).map(|v| v.len()), Ok(300));
}
