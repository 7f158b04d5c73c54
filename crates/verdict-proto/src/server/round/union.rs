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
    let mut accepted: BTreeMap<ClientId, T> = BTreeMap::new();
    let mut upstream = BTreeMap::new();
    let mut doubles: BTreeMap<ClientId, Vec<SharedBytes>> = BTreeMap::new();
    let mut recompute = vec![false; m];
    for (j, items) in inventories.into_iter().enumerate() {
        for (c, sub) in items {
            if excluded.contains(&c) {
                recompute[j] = true;
                continue;
            }
            match accepted.get(&c) {
                Some(prev) if envelope(prev) != envelope(&sub) => {
                    let versions = doubles
                        .entry(c)
                        .or_insert_with(|| vec![envelope(prev).clone()]);
                    versions.push(envelope(&sub).clone());
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
        if let Some(u) = upstream.remove(c)
            && let Some(r) = recompute.get_mut(u.index())
        {
            *r = true;
        }
    }
    Union {
        accepted,
        upstream,
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
}
