//! AVX-512 kernels for batches and for sequential enumeration.
//!
//! Design choice: the same additive keys as the scalar evaluator, sixteen
//! hands per vector. Card codes are transposed with two byte permutes
//! (VBMI), rank keys come from a register-held 16-entry table
//! (`vpermd`), suit counters from variable shifts, and the table reads
//! (row offset, value) are gathers. The kernels are selected at run time
//! (`is_x86_feature_detected!`), so the extension still runs, on the scalar
//! path, on CPUs without AVX-512; both paths give identical values, which the
//! tests check.
//!
//! Batches validate in the same pass: each vector records whether any code is
//! not a card (>= 52) or any two cards of a hand are equal (21 compares).
//! Flush hands (about 3% of random seven-card hands, but present in about 40%
//! of 16-hand vectors) are evaluated in the same pass without branching: the
//! flush suit's rank mask is built per lane and read from the flush table by
//! a masked gather.
//!
//! Sequential enumeration walks every five-card prefix with incremental keys
//! and, for each, all pairs of later cards from one precomputed table (pairs
//! ordered by descending first card, so the pairs after any prefix are a
//! prefix of the table). When the prefix holds three or more cards of one
//! suit, that suit's flush value is looked up for every pair and the larger
//! value taken (the flush table is zero below five suited cards, and a flush
//! beats every non-flush seven-card hand), otherwise no flush is possible.

use super::keys::{HASH_SHIFT, RANK_KEYS};
use super::tables::{FLUSH, HASH_OFFSETS, HIGH};
use core::arch::x86_64::*;
use std::sync::OnceLock;

/// True when the CPU has every AVX-512 extension the kernels use.
pub fn available() -> bool {
    static OK: OnceLock<bool> = OnceLock::new();
    *OK.get_or_init(|| {
        is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512vbmi")
            && is_x86_feature_detected!("avx512vl")
            && is_x86_feature_detected!("avx512cd")
    })
}

const RANK_KEYS_16: [u32; 16] = {
    let mut t = [0u32; 16];
    let mut i = 0;
    while i < 13 {
        t[i] = RANK_KEYS[i];
        i += 1;
    }
    t
};

/// Byte-permute indices: output lane L (16 bytes) holds card `base + L` of
/// hands 0..16, i.e. input byte `7 * hand + card`.
const fn transpose_index(base: usize) -> [u8; 64] {
    let mut t = [0u8; 64];
    let mut lane = 0;
    while lane < 4 {
        let mut h = 0;
        while h < 16 {
            let card = base + lane;
            t[lane * 16 + h] = if card < 7 { (7 * h + card) as u8 } else { 0 };
            h += 1;
        }
        lane += 1;
    }
    t
}
const T0: [u8; 64] = transpose_index(0);
const T1: [u8; 64] = transpose_index(4);

#[inline(always)]
unsafe fn lookup_rank_values(rank_sum: __m512i) -> __m512i {
    let row = _mm512_srli_epi32::<{ HASH_SHIFT }>(rank_sum);
    let off = _mm512_i32gather_epi32::<4>(row, HASH_OFFSETS.as_ptr() as *const i32);
    let idx = _mm512_add_epi32(_mm512_and_si512(rank_sum, _mm512_set1_epi32((1 << HASH_SHIFT) - 1)), off);
    // Reads 4 bytes at HIGH + 2 * idx; build.rs pads HIGH so the last entry
    // can be read this way. The upper half is masked off below.
    _mm512_i32gather_epi32::<2>(idx, HIGH.as_ptr() as *const i32)
}

/// Evaluates `out.len()` seven-card hands (7 codes each) sixteen at a time.
/// Returns false if any hand is invalid (then `out` is unspecified). Hands
/// past the last multiple of 16 are evaluated by `scalar`, called with the
/// hand's index.
///
/// # Safety
/// The CPU must support AVX-512 F/BW/VBMI/VL (`available()`), and
/// `codes.len() == 7 * out.len()`.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vl,avx512cd")]
pub unsafe fn batch7(codes: &[u8], out: &mut [u16], scalar: impl Fn(usize) -> u16) -> bool {
    let n = out.len();
    debug_assert_eq!(codes.len(), 7 * n);
    let rank_keys = _mm512_loadu_si512(RANK_KEYS_16.as_ptr() as *const _);
    let t0 = _mm512_loadu_si512(T0.as_ptr() as *const _);
    let t1 = _mm512_loadu_si512(T1.as_ptr() as *const _);
    let fifty_two = _mm512_set1_epi8(52);
    let one = _mm512_set1_epi32(1);
    let three = _mm512_set1_epi32(3);
    let suit_start = _mm512_set1_epi32(0x3333);
    let flush_bits = _mm512_set1_epi32(0x8888);
    let mut bad: u64 = 0;
    let mut i = 0;
    while i + 16 <= n {
        let p = codes.as_ptr().add(7 * i);
        let lo = _mm512_loadu_si512(p as *const _);
        // 112 bytes per 16 hands: the second load is masked to 48 bytes so it
        // never reads past the input.
        let hi = _mm512_maskz_loadu_epi8(0x0000_ffff_ffff_ffff, p.add(64) as *const i8);
        let a = _mm512_permutex2var_epi8(lo, t0, hi);
        let b = _mm512_permutex2var_epi8(lo, t1, hi);
        bad |= _mm512_cmpge_epu8_mask(a, fifty_two) | (_mm512_cmpge_epu8_mask(b, fifty_two) & 0x0000_ffff_ffff_ffff);
        let c = [
            _mm512_cvtepu8_epi32(_mm512_castsi512_si128(a)),
            _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32::<1>(a)),
            _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32::<2>(a)),
            _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32::<3>(a)),
            _mm512_cvtepu8_epi32(_mm512_castsi512_si128(b)),
            _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32::<1>(b)),
            _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32::<2>(b)),
        ];
        let mut dup: u16 = 0;
        for j in 0..7 {
            for k in j + 1..7 {
                dup |= _mm512_cmpeq_epi32_mask(c[j], c[k]);
            }
        }
        bad |= dup as u64;
        let mut rank_sum = _mm512_setzero_si512();
        let mut suit_sum = suit_start;
        let mut ranks = [_mm512_setzero_si512(); 7];
        let mut shifts = [_mm512_setzero_si512(); 7];
        for j in 0..7 {
            ranks[j] = _mm512_srli_epi32::<2>(c[j]);
            rank_sum = _mm512_add_epi32(rank_sum, _mm512_permutexvar_epi32(ranks[j], rank_keys));
            shifts[j] = _mm512_slli_epi32::<2>(_mm512_and_si512(c[j], three));
            suit_sum = _mm512_add_epi32(suit_sum, _mm512_sllv_epi32(one, shifts[j]));
        }
        // Flush lanes: the counter whose top bit is set names the suit (at
        // most one suit can hold five of seven cards); its rank mask indexes
        // FLUSH. Lanes without a flush get an empty mask and keep the rank
        // value. Branch-free: about 40% of 16-hand vectors hold a flush.
        let top = _mm512_and_si512(suit_sum, flush_bits);
        let flush: u16 = _mm512_test_epi32_mask(top, top);
        let suit_shift = _mm512_sub_epi32(_mm512_set1_epi32(28), _mm512_lzcnt_epi32(top));
        let mut fmask = _mm512_setzero_si512();
        for j in 0..7 {
            let in_suit = _mm512_cmpeq_epi32_mask(shifts[j], suit_shift);
            fmask = _mm512_mask_or_epi32(fmask, in_suit, fmask, _mm512_sllv_epi32(one, ranks[j]));
        }
        // Invalid input (codes >= 52) could set high bits: keep 13 bits.
        fmask = _mm512_and_si512(fmask, _mm512_set1_epi32(0x1fff));
        let fv = _mm512_mask_i32gather_epi32::<2>(_mm512_setzero_si512(), flush, fmask, FLUSH.as_ptr() as *const i32);
        let v = _mm512_mask_blend_epi32(flush, lookup_rank_values(rank_sum), fv);
        _mm256_storeu_si256(out.as_mut_ptr().add(i) as *mut __m256i, _mm512_cvtepi32_epi16(v));
        i += 16;
    }
    for (k, o) in out.iter_mut().enumerate().skip(i) {
        *o = scalar(k);
    }
    bad == 0
}

/// The 1,326 pairs of cards, ordered by descending first card: the pairs
/// whose first card is above `c` are the first `C(51 - c, 2)` entries.
struct Pairs {
    rank: Vec<u32>,
    /// Per suit, the pair's rank bits in that suit.
    suit_mask: [Vec<u32>; 4],
}

fn pairs() -> &'static Pairs {
    static P: OnceLock<Pairs> = OnceLock::new();
    P.get_or_init(|| {
        let mut p = Pairs { rank: Vec::with_capacity(1342), suit_mask: Default::default() };
        for c6 in (0..51u8).rev() {
            for c7 in c6 + 1..52 {
                p.rank.push(RANK_KEYS[(c6 >> 2) as usize] + RANK_KEYS[(c7 >> 2) as usize]);
                for s in 0..4u8 {
                    let m = [c6, c7].iter().filter(|&&c| c & 3 == s).fold(0u32, |m, &c| m | 1 << (c >> 2));
                    p.suit_mask[s as usize].push(m);
                }
            }
        }
        // Pad to a multiple of 16 so full-vector loads stay in bounds.
        while !p.rank.len().is_multiple_of(16) {
            p.rank.push(0);
            for s in 0..4 {
                p.suit_mask[s].push(0);
            }
        }
        p
    })
}

/// Number of pairs of cards above card `c`.
#[inline(always)]
fn pairs_after(c: usize) -> usize {
    let m = 51 - c;
    m * (m - 1) / 2
}

/// Enumerates every seven-card hand of the deck and passes the values to
/// `consume` in blocks (one block per five-card prefix, lexicographic order
/// of card codes).
///
/// # Safety
/// The CPU must support AVX-512 F/BW/VBMI/VL (`available()`).
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vl")]
pub unsafe fn seven_card_blocks(mut consume: impl FnMut(&[u16])) {
    let pairs = pairs();
    let mut buf = vec![0u16; pairs.rank.len() + 16];
    let col_mask = _mm512_set1_epi32((1 << HASH_SHIFT) - 1);
    // Prefix state per level, updated incrementally: rank-key sum, suit
    // counts and per-suit rank masks.
    #[derive(Clone, Copy, Default)]
    struct Prefix {
        rank: u32,
        count: [u8; 4],
        mask: [u32; 4],
    }
    let add = |p: &Prefix, c: usize| -> Prefix {
        let mut q = *p;
        q.rank += RANK_KEYS[c >> 2];
        q.count[c & 3] += 1;
        q.mask[c & 3] |= 1 << (c >> 2);
        q
    };
    let p0 = Prefix::default();
    for c1 in 0..46usize {
        let p1 = add(&p0, c1);
        for c2 in c1 + 1..47 {
            let p2 = add(&p1, c2);
            for c3 in c2 + 1..48 {
                let p3 = add(&p2, c3);
                for c4 in c3 + 1..49 {
                    let p4 = add(&p3, c4);
                    for c5 in c4 + 1..50 {
                        let Prefix { rank: r5, count, mask } = add(&p4, c5);
                        let flush_suit = count.iter().position(|&n| n >= 3);
                        let len = pairs_after(c5);
                        let rs = _mm512_set1_epi32(r5 as i32);
                        let mut k = 0;
                        while k < len {
                            let pr = _mm512_loadu_si512(pairs.rank.as_ptr().add(k) as *const _);
                            let key = _mm512_add_epi32(rs, pr);
                            let row = _mm512_srli_epi32::<{ HASH_SHIFT }>(key);
                            let off = _mm512_i32gather_epi32::<4>(row, HASH_OFFSETS.as_ptr() as *const i32);
                            let idx = _mm512_add_epi32(_mm512_and_si512(key, col_mask), off);
                            let mut v = _mm512_i32gather_epi32::<2>(idx, HIGH.as_ptr() as *const i32);
                            v = _mm512_and_si512(v, _mm512_set1_epi32(0xffff));
                            if let Some(s) = flush_suit {
                                let pm = _mm512_loadu_si512(pairs.suit_mask[s].as_ptr().add(k) as *const _);
                                let fm = _mm512_or_si512(pm, _mm512_set1_epi32(mask[s] as i32));
                                // FLUSH is 8192 u16; reading 4 bytes at entry 8191
                                // would overrun, but a suit mask with the ace
                                // and twelve more ranks cannot come from seven
                                // cards, so indices stay below 8191.
                                let fv = _mm512_i32gather_epi32::<2>(fm, FLUSH.as_ptr() as *const i32);
                                v = _mm512_max_epu32(v, _mm512_and_si512(fv, _mm512_set1_epi32(0xffff)));
                            }
                            _mm256_storeu_si256(buf.as_mut_ptr().add(k) as *mut __m256i, _mm512_cvtepi32_epi16(v));
                            k += 16;
                        }
                        consume(&buf[..len]);
                    }
                }
            }
        }
    }
}
