//! zstd frames as fanotb's formats write them: compressed within the ratio their
//! readers take, or stored (RFC 8878 raw blocks) for bytes that are compressed again
//! later, together with others.

/// The most bytes a raw block holds (RFC 8878, `Block_Maximum_Size`).
const BLOCK: usize = 128 << 10;
/// The first skippable frame magic number: decoders pass over such a frame.
const SKIPPABLE: u32 = 0x184D_2A50;

/// `data` as one zstd frame of raw blocks: any zstd decoder gives `data` back, and
/// the bytes are `data` itself between small block headers. The zstd library has no
/// level that stores; a lemma is stored so that a pack, which compresses its lemmas
/// together, finds what they share (compressed one by one, it would find nothing).
pub(crate) fn stored(data: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(data.len() + 13 + 3 * (data.len() / BLOCK + 1));
    v.extend_from_slice(&0xFD2F_B528u32.to_le_bytes());
    // An 8-byte content size and a single segment (so no window descriptor: the
    // window is the content, which every block fits).
    v.push(0xE0);
    v.extend_from_slice(&(data.len() as u64).to_le_bytes());
    let mut blocks = data.chunks(BLOCK).peekable();
    if data.is_empty() {
        v.extend_from_slice(&[1, 0, 0]); // one empty raw block, the last
    }
    while let Some(block) = blocks.next() {
        // Last_Block in bit 0, Block_Type 0 (raw) in bits 1-2, the size above.
        let head = (block.len() as u32) << 3 | u32::from(blocks.peek().is_none());
        v.extend_from_slice(&head.to_le_bytes()[..3]);
        v.extend_from_slice(block);
    }
    v
}

/// `data` compressed at `level`, padded where needed (a skippable frame after the
/// data's frame) so that `data.len() <= ratio * result.len() + 4096`: a reader that
/// refuses a larger ratio as crafted never refuses what fanotb wrote, however well
/// the data compresses.
pub(crate) fn compress_within(data: &[u8], level: i32, ratio: u64) -> std::io::Result<Vec<u8>> {
    let mut v = zstd::bulk::compress(data, level)?;
    let need = (data.len() as u64).saturating_sub(4096).div_ceil(ratio);
    if (v.len() as u64) < need {
        let pad = (need - v.len() as u64).saturating_sub(8);
        let pad32 = u32::try_from(pad).map_err(std::io::Error::other)?;
        v.extend_from_slice(&SKIPPABLE.to_le_bytes());
        v.extend_from_slice(&pad32.to_le_bytes());
        v.resize(v.len() + pad as usize, 0);
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(n: usize) -> Vec<u8> {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    }

    #[test]
    fn a_stored_frame_decodes_to_its_data() {
        for n in [0, 1, 1000, BLOCK - 1, BLOCK, BLOCK + 1, 3 * BLOCK + 17] {
            let data = bytes(n);
            let frame = stored(&data);
            assert_eq!(
                zstd::decode_all(frame.as_slice()).unwrap(),
                data,
                "{n} bytes"
            );
            assert_eq!(
                frame.len(),
                13 + data.len() + 3 * data.len().div_ceil(BLOCK).max(1)
            );
            // Stored: the data is there as it is, after the frame's head.
            assert_eq!(&frame[16..16 + n.min(BLOCK)], &data[..n.min(BLOCK)]);
        }
    }

    #[test]
    fn data_that_compresses_beyond_the_ratio_is_padded_and_decodes() {
        for (data, padded) in [(vec![0u8; 1 << 20], true), (bytes(1 << 16), false)] {
            let z = compress_within(&data, 19, 64).unwrap();
            assert!(data.len() as u64 <= 64 * z.len() as u64 + 4096);
            assert_eq!(
                z.len() > zstd::bulk::compress(&data, 19).unwrap().len(),
                padded
            );
            let mut out = Vec::new();
            std::io::Read::read_to_end(
                &mut zstd::stream::Decoder::new(z.as_slice()).unwrap(),
                &mut out,
            )
            .unwrap();
            assert_eq!(out, data);
        }
    }
}
