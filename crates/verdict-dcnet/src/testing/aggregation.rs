//! The [`Aggregating`] driver: per-server aggregates reveal what the ciphertexts reveal.

use rand::Rng;
use rand::seq::SliceRandom;

use super::{client_ciphertexts, decoders_never_panic, random_message, rng, setup};
use crate::{Aggregating, ClientId, PreparedSlot, ServerId, SlotRound};

/// The [`Aggregating`] contract: with `n` clients, `m` servers and the accepted
/// set split among the servers (and some clients left out), the reveal from per-server
/// aggregates (sent through their wire format) equals the reveal from every ciphertext; the
/// id-only server operations agree with the ciphertext ones; a wrong aggregate (a ciphertext
/// missing, counted twice, or an element changed) never reveals the message; and aggregate
/// decoding rejects bad lengths and invalid elements.
pub fn aggregation<C: Aggregating>(n: usize, m: usize, len: usize, seed: u64) {
    crate::aggregate::assert_lazy_safe::<C>();
    let mut r = rng(seed);
    let w = setup::<C>(n, m, 2, &mut r);
    let sr = SlotRound::new(1, 9, len);
    let slot = PreparedSlot::new(&w.session, sr).unwrap();
    let owner = r.gen_range(0..n);
    let message = random_message(len, &mut r);
    let cts = client_ciphertexts(&w, &slot, Some((owner, &message)), &mut r);
    // Everyone but one cover client (if there are enough) is accepted, split at random.
    let mut accepted: Vec<usize> = (0..n).collect();
    if n > 2 {
        let gone = (owner + 1) % n;
        accepted.retain(|&i| i != gone);
    }
    let mut shuffled = accepted.clone();
    shuffled.shuffle(&mut r);
    let parts: Vec<Vec<usize>> = (0..m)
        .map(|j| shuffled.iter().copied().skip(j).step_by(m).collect())
        .collect();
    let items = |ids: &[usize]| -> Vec<(ClientId, &C::ClientCiphertext)> {
        ids.iter().map(|&i| (ClientId(i as u32), &cts[i])).collect()
    };
    let aggregates: Vec<C::Aggregate> = parts
        .iter()
        .map(|p| {
            let a = C::aggregate(&w.session, &slot, &items(p)).unwrap();
            let bytes = C::encode_aggregate(&a);
            let back = C::decode_aggregate(len, &bytes).unwrap();
            assert_eq!(back, a);
            back
        })
        .collect();
    let ids: Vec<ClientId> = accepted.iter().map(|&i| ClientId(i as u32)).collect();
    let all = items(&accepted);
    // Combining the parts' aggregates gives the aggregate of all of them; combining nothing
    // gives the aggregate of nobody; a part of another slot's length is refused.
    let whole = C::aggregate(&w.session, &slot, &all).unwrap();
    let part_refs: Vec<&C::Aggregate> = aggregates.iter().collect();
    assert_eq!(C::combine(&slot, &part_refs).unwrap(), whole);
    assert_eq!(
        C::combine(&slot, &[]).unwrap(),
        C::aggregate(&w.session, &slot, &[]).unwrap()
    );
    let server_cts: Vec<C::ServerCiphertext> = w
        .servers
        .iter()
        .enumerate()
        .map(|(j, st)| {
            let ct = C::server_ciphertext_for(&w.session, &slot, st, &ids, &mut r).unwrap();
            // Both verifiers accept it, and reject it for another accepted set.
            C::verify_server_for(&w.session, &slot, ServerId(j as u32), &ids, &ct).unwrap();
            C::verify_server(&w.session, &slot, ServerId(j as u32), &all, &ct).unwrap();
            assert!(
                C::verify_server_for(&w.session, &slot, ServerId(j as u32), &ids[1..], &ct)
                    .is_err()
            );
            ct
        })
        .collect();
    // Several slots of one server at once: all valid; a ciphertext under the wrong slot is
    // named by its position.
    let other = PreparedSlot::new(&w.session, SlotRound::new(0, 9, len)).unwrap();
    for (j, st) in w.servers.iter().enumerate() {
        let server = ServerId(j as u32);
        let mine = &server_cts[j];
        let second = C::server_ciphertext_for(&w.session, &other, st, &ids, &mut r).unwrap();
        let ok = [(&slot, mine), (&other, &second)];
        C::verify_server_slots_for(&w.session, server, &ids, &ok, &mut r).unwrap();
        let swapped = [(&slot, mine), (&slot, &second), (&other, &second)];
        assert_eq!(
            C::verify_server_slots_for(&w.session, server, &ids, &swapped, &mut r),
            Err(vec![1])
        );
        let wrong_set = C::verify_server_slots_for(&w.session, server, &ids[1..], &ok, &mut r);
        assert_eq!(wrong_set, Err(vec![0, 1]));
    }
    let srefs: Vec<&C::ServerCiphertext> = server_cts.iter().collect();
    let arefs: Vec<&C::Aggregate> = aggregates.iter().collect();
    let direct = C::reveal(&w.session, &slot, &all, &srefs).unwrap();
    let aggregated = C::reveal_aggregated(&w.session, &slot, &arefs, &srefs).unwrap();
    assert_eq!(aggregated, direct);
    assert_eq!(aggregated.as_deref(), Some(&message[..]));

    // Wrong aggregates: a cover ciphertext missing, one counted twice.
    let cover = *accepted.iter().find(|&&i| i != owner).unwrap();
    let mut without = accepted.clone();
    without.retain(|&i| i != cover);
    let missing = C::aggregate(&w.session, &slot, &items(&without)).unwrap();
    let mut twice = accepted.clone();
    twice.push(cover);
    let doubled = C::aggregate(&w.session, &slot, &items(&twice)).unwrap();
    for wrong in [&missing, &doubled] {
        let got = C::reveal_aggregated(&w.session, &slot, &[wrong], &srefs);
        assert!(
            !matches!(&got, Ok(Some(m)) if *m == message),
            "a wrong aggregate revealed the message"
        );
    }
    // Aggregates of the wrong length are rejected, by the reveal and by the decoder.
    let short = PreparedSlot::new(&w.session, SlotRound::new(1, 9, 0)).unwrap();
    let short_agg = C::aggregate(&w.session, &short, &[]).unwrap();
    if C::encode_aggregate(&short_agg).len() != C::encode_aggregate(&aggregates[0]).len() {
        assert!(C::reveal_aggregated(&w.session, &slot, &[&short_agg], &srefs).is_err());
        assert!(C::combine(&slot, &[&aggregates[0], &short_agg]).is_err());
    }
    let good = C::encode_aggregate(&aggregates[0]);
    assert!(C::decode_aggregate(len, &good[..good.len() - 1]).is_err());
    let mut extra = good.clone();
    extra.push(0);
    assert!(C::decode_aggregate(len, &extra).is_err());
    let invalid = vec![0xffu8; good.len()];
    assert!(C::decode_aggregate(len, &invalid).is_err());
    decoders_never_panic::<C>(len, &good);
    for bytes in [&good[..good.len() / 2], &invalid[..]] {
        let _ = C::decode_aggregate(len, bytes);
    }
}
