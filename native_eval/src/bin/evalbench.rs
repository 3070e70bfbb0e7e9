//! Rust core benchmark, run by `benchmarks/evaluator.py`.
//!
//! Usage: `evalbench [--hands FILE] [--count N] [--seed S] [--repeat R] [--no-seq]`
//! - `--hands FILE`: seven-card hands as raw card codes, 7 bytes per hand (the
//!   Python benchmark writes the same hands it gives the other evaluators);
//!   without it, `--count` hands are drawn from a xorshift generator.
//! - Random: evaluates every hand of the array, `--repeat` times, and reports
//!   the best pass.
//! - Sequential: enumerates all 133,784,560 seven-card hands with
//!   incremental keys (`for_each_seven_card_value`), best of `--repeat`.
//!
//! Output: one `key=value` line per figure, so the caller can also check that
//! the Rust core and the Python API agree (checksums are sums of values):
//! - `scalar_random_per_s`: one hand at a time, `evaluate7_unchecked`;
//! - `random_per_s`: the batch entry point `evaluate_batch` (validation
//!   included; AVX-512 kernel when the CPU has it), the path the Python batch
//!   API takes;
//! - `scalar_seq_per_s`: `for_each_seven_card_value`, one card key added per
//!   level and one value per call;
//! - `seq_per_s`: `for_each_seven_card_block` (AVX-512 when available).
//!
//! Single thread.

use _native::rank::{evaluate7_unchecked, evaluate_batch, for_each_seven_card_block, for_each_seven_card_value};
use std::hint::black_box;
use std::time::Instant;

fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

fn random_hands(count: usize, seed: u64) -> Vec<u8> {
    let mut s = seed | 1;
    let mut out = Vec::with_capacity(count * 7);
    for _ in 0..count {
        let mut used = 0u64;
        let mut n = 0;
        while n < 7 {
            let c = (xorshift(&mut s) % 52) as u8;
            if used & (1 << c) == 0 {
                used |= 1 << c;
                out.push(c);
                n += 1;
            }
        }
    }
    out
}

fn random_pass(hands: &[[u8; 7]]) -> u64 {
    let mut sum = 0u64;
    for h in hands {
        sum += evaluate7_unchecked(h) as u64;
    }
    sum
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut file: Option<String> = None;
    let mut count = 1_000_000usize;
    let mut seed = 0x853c49e6748fea9bu64;
    let mut repeat = 5usize;
    let mut seq = true;
    while let Some(a) = args.next() {
        let mut val = || args.next().unwrap_or_else(|| panic!("{a} needs a value"));
        match a.as_str() {
            "--hands" => file = Some(val()),
            "--count" => count = val().parse().expect("--count"),
            "--seed" => seed = val().parse().expect("--seed"),
            "--repeat" => repeat = val().parse().expect("--repeat"),
            "--no-seq" => seq = false,
            other => panic!("unknown argument {other}"),
        }
    }
    let codes = match file {
        Some(f) => std::fs::read(f).expect("read hands file"),
        None => random_hands(count, seed),
    };
    assert!(codes.len() % 7 == 0, "hands file length must be a multiple of 7");
    if let Some(bad) = codes.chunks_exact(7).position(|h| {
        let m = h.iter().fold(0u64, |m, &c| m | 1u64 << (c & 63));
        h.iter().any(|&c| c >= 52) || m.count_ones() != 7
    }) {
        panic!("hand {bad} is not seven distinct cards");
    }
    let hands: Vec<[u8; 7]> = codes.chunks_exact(7).map(|h| h.try_into().unwrap()).collect();

    let time_best = |f: &mut dyn FnMut() -> u64| -> (f64, u64) {
        let mut best = f64::INFINITY;
        let mut checksum = 0;
        for _ in 0..repeat.max(1) {
            let t = Instant::now();
            checksum = black_box(f());
            best = best.min(t.elapsed().as_secs_f64());
        }
        (best, checksum)
    };
    println!("hands={}", hands.len());
    // One hand at a time through the scalar evaluator.
    let (t, checksum) = time_best(&mut || random_pass(black_box(&hands)));
    println!("scalar_random_per_s={:.0}", hands.len() as f64 / t);
    println!("scalar_random_checksum={checksum}");
    // The batch entry point (validates every hand; AVX-512 when available).
    let mut out = vec![0u16; hands.len()];
    let (t, checksum) = time_best(&mut || {
        evaluate_batch(black_box(&codes), 7, &mut out).expect("valid hands");
        out.iter().map(|&v| v as u64).sum()
    });
    println!("random_per_s={:.0}", hands.len() as f64 / t);
    println!("random_checksum={checksum}");

    if seq {
        let (t, checksum) = time_best(&mut || {
            let mut sum = 0u64;
            for_each_seven_card_value(|v| sum += v as u64);
            sum
        });
        println!("scalar_seq_per_s={:.0}", 133_784_560f64 / t);
        println!("scalar_seq_checksum={checksum}");
        let (t, checksum) = time_best(&mut || {
            let mut sum = 0u64;
            for_each_seven_card_block(|b| sum += b.iter().map(|&v| v as u64).sum::<u64>());
            sum
        });
        println!("seq_per_s={:.0}", 133_784_560f64 / t);
        println!("seq_checksum={checksum}");
    }
}
