//! Plaintext framing: a byte string of any length ↔ a fixed number of group elements.
//!
//! A frame is `len ‖ message ‖ 0…0`, with `len` the message length as a 4-byte big-endian
//! integer, zero-padded to `n · CAPACITY` bytes and cut into `n` chunks of exactly
//! [`MessageGroup::CAPACITY`] bytes, each embedded into one element. Decoding checks every
//! element is an embedding of a full chunk, that the length fits, and that the padding is zero,
//! so a corrupted reveal is reported instead of returning garbage. A vector of identities (the
//! reveal of a slot nobody wrote into) is reported as [`FrameError::Empty`].

use crate::error::FrameError;
use crate::traits::MessageGroup;

/// Bytes of framing overhead (the length header).
pub const HEADER_LEN: usize = 4;

/// The number of elements needed to frame a message of `len` bytes in group `G`.
pub fn elements_needed<G: MessageGroup>(len: usize) -> usize {
    (len + HEADER_LEN).div_ceil(G::CAPACITY)
}

/// The longest message that fits in `elements` elements of group `G`.
pub fn max_message_len<G: MessageGroup>(elements: usize) -> usize {
    (elements * G::CAPACITY).saturating_sub(HEADER_LEN)
}

/// Frames `message` into exactly `elements` group elements.
pub fn encode_message<G: MessageGroup>(
    message: &[u8],
    elements: usize,
) -> Result<Vec<G>, FrameError> {
    let needed = elements_needed::<G>(message.len());
    let len = u32::try_from(message.len()).ok();
    let (Some(len), true) = (len, needed <= elements) else {
        return Err(FrameError::TooLong {
            len: message.len(),
            needed,
            available: elements,
        });
    };
    // The plaintext frame of an owner's message, wiped once embedded.
    let mut frame = zeroize::Zeroizing::new(vec![0u8; elements * G::CAPACITY]);
    frame[..HEADER_LEN].copy_from_slice(&len.to_be_bytes());
    frame[HEADER_LEN..HEADER_LEN + message.len()].copy_from_slice(message);
    frame
        .chunks_exact(G::CAPACITY)
        .enumerate()
        .map(|(index, chunk)| {
            G::embed(chunk).map_err(|source| FrameError::Element { index, source })
        })
        .collect()
}

/// Recovers the message framed by [`encode_message`].
pub fn decode_message<G: MessageGroup>(elements: &[G]) -> Result<Vec<u8>, FrameError> {
    if elements.iter().all(|e| e.is_identity()) {
        return Err(FrameError::Empty);
    }
    let mut frame = Vec::with_capacity(elements.len() * G::CAPACITY);
    for (index, e) in elements.iter().enumerate() {
        let chunk = e
            .extract()
            .map_err(|source| FrameError::Element { index, source })?;
        if chunk.len() != G::CAPACITY {
            return Err(FrameError::Malformed("element does not carry a full chunk"));
        }
        frame.extend_from_slice(&chunk);
    }
    let (header, body) = frame
        .split_at_checked(HEADER_LEN)
        .ok_or(FrameError::Malformed("frame shorter than its header"))?;
    let mut len_bytes = [0u8; HEADER_LEN];
    len_bytes.copy_from_slice(header);
    let len = u32::from_be_bytes(len_bytes) as usize;
    if len > body.len() {
        return Err(FrameError::Malformed("length header exceeds the frame"));
    }
    let (message, padding) = body.split_at(len);
    if padding.iter().any(|&b| b != 0) {
        return Err(FrameError::Malformed("non-zero padding"));
    }
    Ok(message.to_vec())
}
