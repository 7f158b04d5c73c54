//! The accepted set `S` of a round: the union of every server's inventory.

use std::collections::{BTreeMap, BTreeSet};

use verdict_dcnet::{ClientId, ServerId};

use crate::wire::SharedBytes;

/// The union of the inventories, with what it says about the servers and clients in them.
pub(super) struct Union<T> {
    /// Each accepted client's submission, counted once.
    pub(super) accepted: BTreeMap<ClientId, T>,
    /// The server each accepted client's submission is counted from (the first listing it).
    pub(super) upstream: BTreeMap<ClientId, ServerId>,
    /// Clients listed with different submissions, each with every version it signed (the
    /// evidence of its exclusion); they are in neither `accepted` nor `upstream`.
    pub(super) doubles: BTreeMap<ClientId, Vec<SharedBytes>>,
    /// Per server, whether its inventory is not exactly its share of the set (a client also
    /// listed elsewhere, excluded, or double), so its aggregates cannot be used as they are.
    pub(super) recompute: Vec<bool>,
}

/// The union of `m` servers' inventories (`inventories[j]`: what server `j` accepted, in
/// server order). A client in `excluded` is dropped; the same submission listed by two
/// servers is counted once, from the first; a client listed with two different submissions
/// (`envelope` tells them apart) signed two versions of its round input and is left out.
pub(super) fn union_of<T>(
    inventories: Vec<Vec<(ClientId, T)>>,
    excluded: &BTreeSet<ClientId>,
    envelope: impl Fn(&T) -> &SharedBytes,
) -> Union<T> {
    let m = inventories.len();
    let mut recompute = vec![false; m];
    // Every listing, grouped by client with the servers in order (a stable sort of what are
    // already sorted runs); the maps are then built from sorted input in one pass. Inserting
    // a thousand clients one by one, node splits and all, was a tenth of a hybrid round's
    // serial work at N = 1024.
    let mut listed: Vec<(ClientId, usize, T)> =
        Vec::with_capacity(inventories.iter().map(Vec::len).sum());
    for (j, items) in inventories.into_iter().enumerate() {
        for (c, sub) in items {
            if excluded.contains(&c) {
                recompute[j] = true;
            } else {
                listed.push((c, j, sub));
            }
        }
    }
    listed.sort_by_key(|(c, _, _)| *c);
    let mut accepted = Vec::with_capacity(listed.len());
    let mut upstream = Vec::with_capacity(listed.len());
    let mut doubles: BTreeMap<ClientId, Vec<SharedBytes>> = BTreeMap::new();
    let mut rest = listed.into_iter().peekable();
    while let Some((c, first_server, first)) = rest.next() {
        // Later listings of the same client: the same submission counts once (from the
        // first server), another one makes the client a double.
        let mut versions: Vec<SharedBytes> = Vec::new();
        while let Some((_, j, sub)) = rest.next_if(|(d, _, _)| *d == c) {
            recompute[j] = true;
            if envelope(&sub) != envelope(&first) {
                if versions.is_empty() {
                    versions.push(envelope(&first).clone());
                }
                versions.push(envelope(&sub).clone());
            }
        }
        if versions.is_empty() {
            accepted.push((c, first));
            upstream.push((c, ServerId(first_server as u32)));
        } else {
            recompute[first_server] = true;
            doubles.insert(c, versions);
        }
    }
    Union {
        accepted: accepted.into_iter().collect(),
        upstream: upstream.into_iter().collect(),
        doubles,
        recompute,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sub(c: u32, version: u8) -> (ClientId, SharedBytes) {
        (ClientId(c), vec![c as u8, version].into())
    }

    fn union(
        inventories: Vec<Vec<(ClientId, SharedBytes)>>,
        excluded: &[u32],
    ) -> Union<SharedBytes> {
        let excluded = excluded.iter().map(|&c| ClientId(c)).collect();
        union_of(inventories, &excluded, |s| s)
    }

    #[test]
    fn disjoint_inventories_unite_with_their_upstreams() {
        let u = union(vec![vec![sub(0, 0), sub(2, 0)], vec![sub(1, 0)]], &[]);
        let ids: Vec<u32> = u.accepted.keys().map(|c| c.0).collect();
        assert_eq!(ids, [0, 1, 2]);
        assert_eq!(u.upstream[&ClientId(1)], ServerId(1));
        assert_eq!(u.upstream[&ClientId(2)], ServerId(0));
        assert!(u.doubles.is_empty());
        assert_eq!(u.recompute, [false, false]);
    }

    #[test]
    fn the_same_submission_twice_counts_once_from_the_first_server() {
        let u = union(vec![vec![sub(0, 0)], vec![sub(0, 0), sub(1, 0)]], &[]);
        assert_eq!(u.accepted.len(), 2);
        assert_eq!(u.upstream[&ClientId(0)], ServerId(0));
        // The second server's inventory is not its share: its aggregates are recomputed.
        assert_eq!(u.recompute, [false, true]);
    }

    #[test]
    fn two_versions_leave_the_client_out_with_both_as_evidence() {
        let u = union(
            vec![vec![sub(0, 0), sub(1, 0)], vec![sub(0, 1)], vec![]],
            &[],
        );
        assert!(!u.accepted.contains_key(&ClientId(0)));
        assert!(!u.upstream.contains_key(&ClientId(0)));
        let versions: Vec<&[u8]> = u.doubles[&ClientId(0)].iter().map(|v| &v[..]).collect();
        assert_eq!(versions, [[0, 0], [0, 1]]);
        assert!(u.accepted.contains_key(&ClientId(1)));
        assert_eq!(u.recompute, [true, true, false]);
    }

    #[test]
    fn excluded_clients_are_dropped_and_their_server_recomputes() {
        let u = union(vec![vec![sub(0, 0)], vec![sub(3, 0), sub(4, 0)]], &[3]);
        let ids: Vec<u32> = u.accepted.keys().map(|c| c.0).collect();
        assert_eq!(ids, [0, 4]);
        assert_eq!(u.recompute, [false, true]);
    }

    /// The union as first written (one map insertion per listing): the specification the
    /// sorted build must match.
    fn by_insertion(
        inventories: Vec<Vec<(ClientId, SharedBytes)>>,
        excluded: &BTreeSet<ClientId>,
    ) -> Union<SharedBytes> {
        let mut accepted: BTreeMap<ClientId, SharedBytes> = BTreeMap::new();
        let mut upstream = BTreeMap::new();
        let mut doubles: BTreeMap<ClientId, Vec<SharedBytes>> = BTreeMap::new();
        let mut recompute = vec![false; inventories.len()];
        for (j, items) in inventories.into_iter().enumerate() {
            for (c, sub) in items {
                if excluded.contains(&c) {
                    recompute[j] = true;
                    continue;
                }
                match accepted.get(&c) {
                    Some(prev) if *prev != sub => {
                        let versions = doubles.entry(c).or_insert_with(|| vec![prev.clone()]);
                        versions.push(sub);
                        recompute[j] = true;
                    }
                    Some(_) => recompute[j] = true,
                    None => {
                        accepted.insert(c, sub);
                        upstream.insert(c, ServerId(j as u32));
                    }
                }
            }
        }
        for c in doubles.keys() {
            accepted.remove(c);
            if let Some(u) = upstream.remove(c) {
                recompute[u.index()] = true;
            }
        }
        Union {
            accepted,
            upstream,
            doubles,
            recompute,
        }
    }

    #[test]
    fn random_inventories_unite_as_by_insertion() {
        use rand_chacha::ChaCha20Rng;
        use rand_core::{RngCore, SeedableRng};
        let mut rng = ChaCha20Rng::seed_from_u64(5);
        let (mut with_doubles, mut recomputing) = (0, 0);
        for _ in 0..300 {
            let m = 1 + (rng.next_u32() % 5) as usize;
            // Each server lists a sorted set of clients out of 12, each in one of 3 versions
            // (mostly the first: the same submission forwarded twice).
            let inventories: Vec<Vec<(ClientId, SharedBytes)>> = (0..m)
                .map(|_| {
                    let mut listed = Vec::new();
                    for c in 0..12u32 {
                        let draw = rng.next_u32();
                        if draw % 3 == 0 {
                            listed.push(sub(c, ((draw >> 8) % 6).saturating_sub(3) as u8));
                        }
                    }
                    listed
                })
                .collect();
            let excluded: BTreeSet<ClientId> = (0..12u32)
                .filter(|_| rng.next_u32() % 8 == 0)
                .map(ClientId)
                .collect();
            let fast = union_of(inventories.clone(), &excluded, |s| s);
            let slow = by_insertion(inventories, &excluded);
            with_doubles += usize::from(!slow.doubles.is_empty());
            recomputing += usize::from(slow.recompute.contains(&true));
            assert_eq!(fast.accepted, slow.accepted);
            assert_eq!(fast.upstream, slow.upstream);
            assert_eq!(fast.doubles, slow.doubles);
            assert_eq!(fast.recompute, slow.recompute);
        }
        // The draws exercise every case, not just disjoint inventories.
        assert!(
            with_doubles > 30 && recomputing > with_doubles,
            "{with_doubles} {recomputing}"
        );
    }
}
