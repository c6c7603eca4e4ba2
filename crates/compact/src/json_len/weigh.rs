//! The byte-weight sums every length in [`super`] is made of: Σ weight(b) over a string's bytes,
//! 32 bytes at a time in 8-bit vector lanes, with AVX2 when the CPU has it. These sums run over
//! every byte of every history, so they are the one place where speed is bought with `unsafe`.

/// Σ `weight(b)` over the bytes of `s`, for weights of at most [`MAX_WEIGHT`].
pub(super) fn weigh(s: &[u8], weight: impl Fn(u8) -> u8) -> u64 {
    weigh2(s, weight, |_| 0).0
}

/// Σ `first(b)` and Σ `second(b)` over the bytes of `s`, in one pass, for weights of at most
/// [`MAX_WEIGHT`]. These sums run over every byte of every history: with AVX2 when the CPU has
/// it (twice as fast as the SSE2 every x86-64 has), else as the target allows.
pub(super) fn weigh2(s: &[u8], first: impl Fn(u8) -> u8, second: impl Fn(u8) -> u8) -> (u64, u64) {
    // Short strings (ids, names, keys) are one padded block: not worth asking.
    #[cfg(target_arch = "x86_64")]
    if s.len() >= 32 && std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { weigh2_avx2(s, first, second) };
    }
    weigh2_lanes(s, first, second)
}

/// [`weigh2_lanes`] compiled for AVX2.
///
/// # Safety
///
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn weigh2_avx2(s: &[u8], first: impl Fn(u8) -> u8, second: impl Fn(u8) -> u8) -> (u64, u64) {
    weigh2_lanes(s, first, second)
}

/// [`weigh2`] made the way vector units like: weights of 32 bytes at a time added in 8-bit
/// lanes, widened only every 21 blocks (21 × 12 < 256).
#[inline(always)]
pub(super) fn weigh2_lanes(s: &[u8], first: impl Fn(u8) -> u8, second: impl Fn(u8) -> u8) -> (u64, u64) {
    const ROUNDS: usize = u8::MAX as usize / MAX_WEIGHT as usize;
    let widen = |lanes: &[u8; LANES]| lanes.iter().map(|&n| u64::from(n)).sum::<u64>();
    let blocks = s.chunks_exact(LANES);
    let rest = blocks.remainder();
    let (mut a, mut b) = (0, 0);
    let (mut lanes_a, mut lanes_b) = ([0u8; LANES], [0u8; LANES]);
    for (k, block) in blocks.enumerate() {
        let block: &[u8; LANES] = block.try_into().unwrap_or(&[0; LANES]);
        add_block(block, (&mut lanes_a, &first), (&mut lanes_b, &second));
        if k % ROUNDS == ROUNDS - 1 {
            (a, b) = (a + widen(&lanes_a), b + widen(&lanes_b));
            (lanes_a, lanes_b) = ([0; LANES], [0; LANES]);
        }
    }
    // The last bytes (all of a short string) as one more block, padded with a letter, whose
    // weight is then taken off: one block is cheaper than a byte at a time. The lanes hold at
    // most `ROUNDS` blocks with it.
    let mut padding = 0;
    if !rest.is_empty() {
        let mut last = [b'a'; LANES];
        last[..rest.len()].copy_from_slice(rest);
        add_block(&last, (&mut lanes_a, &first), (&mut lanes_b, &second));
        padding = (LANES - rest.len()) as u64;
    }
    (
        a + widen(&lanes_a) - padding * u64::from(first(b'a')),
        b + widen(&lanes_b) - padding * u64::from(second(b'a')),
    )
}

/// How many bytes [`weigh2_lanes`] weighs at a time.
const LANES: usize = 32;

/// Adds the two weights of each byte of `block` to their lanes.
#[inline(always)]
fn add_block(block: &[u8; LANES], a: (&mut [u8; LANES], impl Fn(u8) -> u8), b: (&mut [u8; LANES], impl Fn(u8) -> u8)) {
    let ((lanes_a, first), (lanes_b, second)) = (a, b);
    for ((x, y), &byte) in lanes_a.iter_mut().zip(lanes_b.iter_mut()).zip(block) {
        *x = x.wrapping_add(first(byte));
        *y = y.wrapping_add(second(byte));
    }
}

/// The largest weight [`weigh`] takes: an astral character's lead byte under `ensure_ascii`.
pub(super) const MAX_WEIGHT: u8 = 12;
