//! `cargo bench -p nexusq-native --bench dudect [-- OPTIONS]`: a dudect-style statistical
//! timing test (Reparaz, Balasch, Verbauwhede, "dude, is my code constant time?", 2017) of the
//! secret-dependent operations, on every implementation this CPU has.
//!
//! Each measurement times one operation on an input of class A or class B, the class drawn at
//! random per measurement so that drift on a shared machine hits both classes alike. Welch's
//! t-test compares the two timing distributions: uncropped, cropped below each of 100
//! percentiles (fixed from a calibration phase, as dudect does, to discard the long tail that
//! interrupts and other tenants add) and, second-order, the squared distance from the class
//! mean. |t| > 4.5 on any of them is dudect's conventional "possible leak", but the largest of
//! about a hundred correlated, heavy-tailed t values has no known null distribution, so each
//! result also gets a permutation p-value: the same statistic recomputed with the class labels
//! shuffled among the same inputs (`--perms P` times; under "no difference" every relabelling
//! of the inputs is as likely), p = (1 + #{shuffled ≥ observed}) / (P + 1), and the 95th
//! percentile of the shuffled maxima beside it. Labels move with inputs, not measurements:
//! signing reuses a pool of inputs, and a measurement-level shuffle mistakes the two pools'
//! own per-input differences for a class difference once there are millions of measurements.
//! The verdict is the p-value's: below 0.01, "difference"; else "no difference detected".
//!
//! Targets:
//! - `mlkem768`, `mlkem1024`: decapsulation with one key; A = valid ciphertexts, B = invalid ones
//!   (random bytes, or a valid ciphertext with one bit flipped) that take implicit rejection.
//! - `mldsa65-key`: signing μ; A = one fixed signing key, B = random signing keys; random μ and
//!   rnd in both.
//! - `mldsa65-secret`: the same with B's keys given A's ρ, so that only secret key parts
//!   differ between the classes.
//! - `mldsa65-aa`: the same setup with B's keys copies of A's key: an A/A test that the
//!   setup itself makes no difference.
//! - `mldsa65-rnd`: signing one fixed μ with one key; A = one fixed rnd, B = random rnd (so
//!   random masks y).
//! - `mldsa65-hints`: a control on public data only: one key and one μ, random rnd; A =
//!   signatures with few hints, B = many. The signature shows the hints, so a difference here
//!   is no secret leak; it tells how much of `mldsa65-rnd` public data can explain.
//!
//! Signing compares like with like. FIPS 204 lets the number of rejection-loop attempts show,
//! so every signing input is preselected (with `sign_mu_counting`) to take exactly one attempt,
//! and each measurement checks it still does. The hint encoding branches on the public hints,
//! so class B's inputs are also preselected to have class A's hint counts (`--no-match-hints`
//! turns that off); both classes' inputs share one vector in a random order, and all keys are
//! reallocated in that order, so that neither class has a memory layout of its own.
//!
//! Options (after `--`): `--target LIST` (comma-separated, default all), `--impl LIST`
//! (default every available one), `--kem-n N` and `--dsa-n N` (measurements per target and
//! implementation, both classes together; `k`/`M` suffixes allowed), `--seconds S` (stop a
//! target/implementation pair after S seconds even if N is not reached), `--invalid
//! mix|random|flip` (class B for ML-KEM, default mix), `--pool P` (preselected signing inputs
//! per class, default 512), `--no-match-hints`, `--perms P` (label permutations for the
//! p-value, default 200; 0 skips it).
//!
//! The clock is the TSC (`lfence; rdtsc; lfence`) on x86-64: a few cycles to read, no system
//! call, and it ticks at a constant rate on this kind of CPU (`constant_tsc`), so its ticks are
//! comparable between measurements; only the difference between classes matters, not the unit.
//! Elsewhere `Instant` (the vDSO's monotonic clock), whose ~20-50 ns overhead is the same for
//! both classes and small against the 10-500 µs operations.

use nexusq_native::{Implementation, available, mldsa65, mlkem768, mlkem1024, with_implementation};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// |t| above this is a possible leak (dudect's threshold).
const T_THRESHOLD: f64 = 4.5;
/// Cropping thresholds, as in dudect: percentile 1 - 0.5^(10 (i + 1) / 100) of the calibration.
const PERCENTILES: usize = 100;
/// Measurements before the thresholds are fixed; not counted in the statistics.
const CALIBRATION: usize = 10_000;
/// A test counts only once each class has this many measurements in it (the low percentiles
/// keep few).
const MIN_PER_CLASS: f64 = 1_000.0;
/// Measurements per round of freshly prepared inputs: small enough that a round's inputs stay
/// in the caches.
const ROUND: usize = 1_000;

// ---------------------------------------------------------------------------------------------
// Randomness: inputs only, so buffered OS randomness is plenty.

struct Rand {
    buf: Vec<u8>,
    pos: usize,
}

impl Rand {
    fn new() -> Self {
        Rand {
            buf: vec![0; 1 << 16],
            pos: 1 << 16,
        }
    }

    fn fill(&mut self, out: &mut [u8]) {
        for b in out {
            if self.pos == self.buf.len() {
                getrandom::fill(&mut self.buf).expect("OS randomness");
                self.pos = 0;
            }
            *b = self.buf[self.pos];
            self.pos += 1;
        }
    }

    fn bytes<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0; N];
        self.fill(&mut out);
        out
    }

    /// Uniform enough below `n` for picking inputs (the modulo bias is < 2^-40).
    fn below(&mut self, n: usize) -> usize {
        (u64::from_le_bytes(self.bytes()) % n as u64) as usize
    }
}

// ---------------------------------------------------------------------------------------------
// The clock.

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn ticks() -> u64 {
    use core::arch::x86_64::{_mm_lfence, _rdtsc};
    // The fences keep the operation's instructions from moving across the read.
    // SAFETY: SSE2 (lfence) is part of x86-64, and rdtsc has no preconditions.
    unsafe {
        _mm_lfence();
        let t = _rdtsc();
        _mm_lfence();
        t
    }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn ticks() -> u64 {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

// ---------------------------------------------------------------------------------------------
// Statistics.

/// Welch's t-test, accumulated online (Welford) per class.
#[derive(Clone, Copy, Default)]
struct Welch {
    n: [f64; 2],
    mean: [f64; 2],
    m2: [f64; 2],
}

impl Welch {
    fn push(&mut self, x: f64, class: usize) {
        self.n[class] += 1.0;
        let delta = x - self.mean[class];
        self.mean[class] += delta / self.n[class];
        self.m2[class] += delta * (x - self.mean[class]);
    }

    fn enough(&self) -> bool {
        self.n[0] >= MIN_PER_CLASS && self.n[1] >= MIN_PER_CLASS
    }

    fn t(&self) -> f64 {
        let var = |c: usize| self.m2[c] / (self.n[c] - 1.0);
        (self.mean[0] - self.mean[1]) / (var(0) / self.n[0] + var(1) / self.n[1]).sqrt()
    }
}

/// Which of the tests gave a t value.
fn test_name(index: usize) -> String {
    match index {
        0 => "uncropped".into(),
        i if i <= PERCENTILES => format!("cropped < p{:.1}", 100.0 * crop_fraction(i - 1)),
        _ => "second order".into(),
    }
}

fn crop_fraction(i: usize) -> f64 {
    1.0 - 0.5f64.powf(10.0 * (i + 1) as f64 / PERCENTILES as f64)
}

struct Tests {
    thresholds: Vec<u64>,
    /// 0: uncropped, 1..=PERCENTILES: cropped, last: second order.
    welch: Vec<Welch>,
    samples: [Vec<u64>; 2],
    /// The input each sample was measured on (`Workload::unit`), beside `samples`.
    units: [Vec<Option<u32>>; 2],
}

impl Tests {
    fn new(mut calibration: Vec<u64>) -> Self {
        calibration.sort_unstable();
        let last = calibration.len() - 1;
        let thresholds = (0..PERCENTILES)
            .map(|i| calibration[(crop_fraction(i) * last as f64) as usize])
            .collect();
        Tests {
            thresholds,
            welch: vec![Welch::default(); PERCENTILES + 2],
            samples: [Vec::new(), Vec::new()],
            units: [Vec::new(), Vec::new()],
        }
    }

    fn push(&mut self, x: u64, class: usize, unit: Option<u32>) {
        let xf = x as f64;
        // Second order: the squared distance from the class mean so far (dudect waits for the
        // mean to settle first).
        if self.welch[0].n[class] > 10_000.0 {
            let centered = xf - self.welch[0].mean[class];
            self.welch[PERCENTILES + 1].push(centered * centered, class);
        }
        self.welch[0].push(xf, class);
        for (w, &limit) in self.welch[1..=PERCENTILES].iter_mut().zip(&self.thresholds) {
            if x < limit {
                w.push(xf, class);
            }
        }
        self.samples[class].push(x);
        self.units[class].push(unit);
    }

    /// The largest |t| among the tests with enough measurements, and which test it is.
    fn max_t(&self) -> (f64, usize) {
        self.welch
            .iter()
            .enumerate()
            .filter(|(_, w)| w.enough())
            .map(|(i, w)| (w.t().abs(), i))
            .fold((0.0, 0), |best, x| if x.0 > best.0 { x } else { best })
    }

    fn median(&mut self, class: usize) -> u64 {
        let s = &mut self.samples[class];
        if s.is_empty() {
            return 0;
        }
        let mid = s.len() / 2;
        *s.select_nth_unstable(mid).1
    }
}

/// Welch's t from a class's count, sum and sum of squares (of centred values).
fn welch_t(a: [f64; 3], b: [f64; 3]) -> Option<f64> {
    if a[0] < MIN_PER_CLASS || b[0] < MIN_PER_CLASS {
        return None;
    }
    let mv = |c: [f64; 3]| {
        let mean = c[1] / c[0];
        (mean, (c[2] - c[1] * mean) / (c[0] - 1.0))
    };
    let ((ma, va), (mb, vb)) = (mv(a), mv(b));
    Some((ma - mb) / (va / a[0] + vb / b[0]).sqrt())
}

/// The measurements pooled, for the permutation test: each value centred on the pooled mean
/// (so that sums of squares keep their precision), the first cropping test that keeps it
/// (`PERCENTILES` if none), and its input (`unit`, numbered densely); each input's class.
///
/// The labels are shuffled among inputs, not measurements: signing reuses a pool of inputs,
/// and each input's own time (its μ and rnd, the allocation its key copy landed in) is shared
/// by all its measurements. Shuffling measurements would treat those per-input differences
/// between two finite pools as a class difference: at 10 million measurements the A/A control
/// (both pools the same key) came out p = 0.005 that way. Inputs, not measurements, are what
/// the classes drew at random, so shuffling them is exact.
struct Pooled {
    x: Vec<f64>,
    first_crop: Vec<u8>,
    unit: Vec<u32>,
    unit_labels: Vec<u8>,
}

impl Pooled {
    fn new(tests: &Tests) -> Self {
        let all = || tests.samples[0].iter().chain(&tests.samples[1]);
        let n = all().count();
        let mean = all().map(|&x| x as f64).sum::<f64>() / n as f64;
        // Dense numbers: a pool entry keeps one, an input of its own gets a fresh one.
        let mut dense = std::collections::HashMap::new();
        let mut unit_labels = Vec::new();
        let mut unit = Vec::with_capacity(n);
        for c in 0..2u8 {
            for &u in &tests.units[c as usize] {
                let fresh = unit_labels.len() as u32;
                let id = match u {
                    Some(u) => *dense.entry(u).or_insert(fresh),
                    None => fresh,
                };
                if id == fresh {
                    unit_labels.push(c);
                }
                assert_eq!(unit_labels[id as usize], c, "an input in both classes");
                unit.push(id);
            }
        }
        Pooled {
            x: all().map(|&x| x as f64 - mean).collect(),
            first_crop: all()
                .map(|&x| tests.thresholds.partition_point(|&limit| limit <= x) as u8)
                .collect(),
            unit,
            unit_labels,
        }
    }

    fn units(&self) -> usize {
        self.unit_labels.len()
    }

    /// Each measurement's class when the inputs have the classes `unit_labels`.
    fn labels(&self, unit_labels: &[u8], out: &mut Vec<u8>) {
        out.clear();
        out.extend(self.unit.iter().map(|&u| unit_labels[u as usize]));
    }

    /// The largest |t| of the uncropped, the cropped and the second-order tests (this one about
    /// each class's final mean) with the classes `labels`.
    fn max_t(&self, labels: &[u8]) -> f64 {
        // Per class and first crop: count, sum, sum of squares; crop i keeps firsts 0..=i.
        let mut acc = [[[0f64; 3]; PERCENTILES + 1]; 2];
        for ((&x, &f), &c) in self.x.iter().zip(&self.first_crop).zip(labels) {
            let a = &mut acc[c as usize][f as usize];
            a[0] += 1.0;
            a[1] += x;
            a[2] += x * x;
        }
        let mut run = [[0f64; 3]; 2];
        let mut best = 0f64;
        for (a, b) in acc[0].iter().zip(&acc[1]) {
            for k in 0..3 {
                run[0][k] += a[k];
                run[1][k] += b[k];
            }
            // Cropped tests first, the uncropped one (every first crop) last.
            if let Some(t) = welch_t(run[0], run[1]) {
                best = best.max(t.abs());
            }
        }
        let mean = [run[0][1] / run[0][0], run[1][1] / run[1][0]];
        let mut second = [[0f64; 3]; 2];
        for (&x, &c) in self.x.iter().zip(labels) {
            let d = x - mean[c as usize];
            let y = d * d;
            let a = &mut second[c as usize];
            a[0] += 1.0;
            a[1] += y;
            a[2] += y * y;
        }
        if let Some(t) = welch_t(second[0], second[1]) {
            best = best.max(t.abs());
        }
        best
    }

    /// The permutation p-value of the observed statistic and the 95th percentile of the
    /// shuffled ones, from `perms` shuffles of the inputs' labels (Fisher–Yates, xorshift
    /// seeded from the system: the labels are not secret).
    fn permutation(&self, perms: usize, rng: &mut Rand) -> (f64, f64, f64) {
        let mut labels = Vec::with_capacity(self.x.len());
        self.labels(&self.unit_labels, &mut labels);
        let observed = self.max_t(&labels);
        let mut seed = [0u8; 8];
        rng.fill(&mut seed);
        let mut state = u64::from_le_bytes(seed) | 1;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut units = self.unit_labels.clone();
        let mut shuffled: Vec<f64> = (0..perms)
            .map(|_| {
                for i in (1..units.len()).rev() {
                    let j = (next() % (i as u64 + 1)) as usize;
                    units.swap(i, j);
                }
                self.labels(&units, &mut labels);
                self.max_t(&labels)
            })
            .collect();
        shuffled.sort_by(f64::total_cmp);
        let above = shuffled.iter().filter(|&&t| t >= observed).count();
        let q95 = shuffled[(0.95 * (perms - 1) as f64).round() as usize];
        (observed, (1 + above) as f64 / (perms + 1) as f64, q95)
    }
}

// ---------------------------------------------------------------------------------------------
// What is measured.

/// One operation under test with its two classes of inputs.
trait Workload {
    type Out;
    /// Makes the inputs of one round: the i-th of class `classes[i]` (0 = A, 1 = B). Not timed.
    fn prepare(&mut self, rng: &mut Rand, classes: &[u8]);
    /// The timed operation on the i-th input of the round.
    fn run(&self, i: usize) -> Self::Out;
    /// Which reused input the i-th of the round is (the same number for the same input in
    /// every round), or None for an input made for this measurement alone.
    fn unit(&self, i: usize) -> Option<u32>;
    /// Checks, untimed, that the output is what the class promises (valid ciphertexts decrypt,
    /// signing took one attempt), so a wrong setup cannot pass silently.
    fn check(&self, i: usize, out: &Self::Out);
}

#[derive(Clone, Copy, PartialEq)]
enum Invalid {
    Random,
    Flip,
    Mix,
}

macro_rules! kem_workload {
    ($name:ident, $m:ident) => {
        struct $name {
            ek: $m::EncapsulationKey,
            dk: $m::DecapsulationKey,
            invalid: Invalid,
            cts: Vec<$m::Ciphertext>,
            /// The key of the valid ciphertext each input is or was made from, and whether it
            /// is still valid.
            expected: Vec<($m::SharedSecret, bool)>,
        }

        impl $name {
            fn new(rng: &mut Rand, invalid: Invalid) -> Self {
                let (ek, dk) = $m::keygen_internal(&rng.bytes(), &rng.bytes());
                $name {
                    ek,
                    dk,
                    invalid,
                    cts: Vec::new(),
                    expected: Vec::new(),
                }
            }
        }

        impl Workload for $name {
            type Out = $m::SharedSecret;

            fn prepare(&mut self, rng: &mut Rand, classes: &[u8]) {
                self.cts.clear();
                self.expected.clear();
                for &class in classes {
                    let (ct, key) = $m::encapsulate_internal(&self.ek, &rng.bytes());
                    if class == 0 {
                        self.cts.push(ct);
                        self.expected.push((key, true));
                        continue;
                    }
                    let random = match self.invalid {
                        Invalid::Random => true,
                        Invalid::Flip => false,
                        Invalid::Mix => rng.bytes::<1>()[0] & 1 == 1,
                    };
                    let mut bytes = *ct.as_bytes();
                    if random {
                        rng.fill(&mut bytes);
                    } else {
                        // One bit: the re-encryption then differs from the input in just
                        // that bit, the hardest case for an early-exit comparison.
                        let bit = rng.below(bytes.len() * 8);
                        bytes[bit / 8] ^= 1 << (bit % 8);
                    }
                    self.cts
                        .push($m::Ciphertext::from_bytes(&bytes).expect("length"));
                    self.expected.push((key, false));
                }
            }

            #[inline(never)]
            fn run(&self, i: usize) -> Self::Out {
                $m::decapsulate(&self.dk, &self.cts[i])
            }

            fn unit(&self, _: usize) -> Option<u32> {
                None
            }

            fn check(&self, i: usize, out: &Self::Out) {
                let (key, valid) = &self.expected[i];
                assert_eq!(key == out, *valid, "decapsulation took the wrong path");
            }
        }
    };
}

kem_workload!(Kem768, mlkem768);
kem_workload!(Kem1024, mlkem1024);

/// A signing input preselected to take one attempt.
struct DsaInput {
    sk: mldsa65::SigningKey,
    mu: [u8; 64],
    rnd: [u8; 32],
}

struct Dsa {
    /// Both classes' inputs in one vector, in a random order. Two vectors, one per class,
    /// would give each class a layout of its own for the whole run (its own pages, cache sets,
    /// perhaps a transparent huge page for one and not the other), which the permutation test
    /// cannot see: it moves inputs between the classes, not the classes' memory. At
    /// `--pool 16384` the A/A control differed with two vectors, with a sign that changed from
    /// run to run. Class A's fixed key is cloned per entry so that both classes read their key
    /// from as many separate allocations (one hot key would favour class A's caches).
    inputs: Vec<DsaInput>,
    /// The positions in `inputs` of each class's inputs.
    members: [Vec<u32>; 2],
    /// The positions in `inputs` of this round's inputs.
    picks: Vec<u32>,
}

/// Draws (μ, rnd) from `draw` until signing with `sk` takes one attempt and the signature's
/// hint count passes `accept`, at most `tries` times; returns the input and the hint count.
fn try_preselect(
    sk: &mldsa65::SigningKey,
    rng: &mut Rand,
    mut draw: impl FnMut(&mut Rand) -> ([u8; 64], [u8; 32]),
    accept: impl Fn(u8) -> bool,
    tries: usize,
) -> Option<(DsaInput, u8)> {
    for _ in 0..tries {
        let (mu, rnd) = draw(rng);
        let (sig, attempts) = mldsa65::sign_mu_counting(sk, &mu, &rnd);
        // HintBitPack's last count byte: the number of hints.
        let hints = sig.as_bytes()[mldsa65::SIGNATURE_LEN - 1];
        if attempts == 1 && accept(hints) {
            let input = DsaInput {
                sk: sk.clone(),
                mu,
                rnd,
            };
            return Some((input, hints));
        }
    }
    None
}

/// [`try_preselect`] without a limit.
fn preselect(
    sk: &mldsa65::SigningKey,
    rng: &mut Rand,
    draw: impl FnMut(&mut Rand) -> ([u8; 64], [u8; 32]),
    accept: impl Fn(u8) -> bool,
) -> (DsaInput, u8) {
    try_preselect(sk, rng, draw, accept, usize::MAX).expect("no limit")
}

/// Whether class B must match class A's hint counts (see `Options::match_hints`).
fn hint_filter(match_hints: bool, want: u8) -> impl Fn(u8) -> bool {
    move |hints| !match_hints || hints == want
}

/// Where class B's signing keys come from.
#[derive(Clone, Copy, PartialEq)]
enum Keys {
    /// Fresh keys.
    Random,
    /// Fresh keys given class A's ρ.
    SameRho,
    /// Class A's key again: an A/A test of the setup itself.
    Same,
}

impl Dsa {
    fn new(rng: &mut Rand, a: Vec<(DsaInput, u8)>, b: Vec<(DsaInput, u8)>) -> Self {
        let mean =
            |v: &[(DsaInput, u8)]| v.iter().map(|e| e.1 as f64).sum::<f64>() / v.len() as f64;
        eprintln!("  mean hint count: A {:.2}, B {:.2}", mean(&a), mean(&b));
        let mut tagged: Vec<(u8, DsaInput)> = (a.into_iter().map(|e| (0, e.0)))
            .chain(b.into_iter().map(|e| (1, e.0)))
            .collect();
        for i in (1..tagged.len()).rev() {
            tagged.swap(i, rng.below(i + 1));
        }
        // The classes' keys were allocated in different patterns (B's among keygen's
        // temporaries), so their addresses, and with them which vector loads split cache
        // lines, could differ by class. Reallocate every key in the shuffled order so that
        // the layout is the same for both classes; the old ones are freed only afterwards so
        // that the new ones do not fill their holes in class order.
        let mut old = Vec::with_capacity(tagged.len());
        let mut members = [Vec::new(), Vec::new()];
        let mut inputs = Vec::with_capacity(tagged.len());
        for (position, (class, mut input)) in tagged.into_iter().enumerate() {
            let fresh = input.sk.clone();
            old.push(std::mem::replace(&mut input.sk, fresh));
            members[class as usize].push(position as u32);
            inputs.push(input);
        }
        drop(old);
        Dsa {
            inputs,
            members,
            picks: Vec::new(),
        }
    }

    /// A = one fixed key, B = a key per entry from `keys`; random (μ, rnd) in both. With
    /// `Keys::SameRho` the classes differ only in secret parts (K, s1, s2, t0), not in ρ,
    /// which is public and drives ExpandA's rejection sampling (tr is not used once μ is
    /// given).
    fn keys(rng: &mut Rand, pool: usize, keys: Keys, match_hints: bool) -> Self {
        let random = |rng: &mut Rand| (rng.bytes(), rng.bytes());
        let fixed = mldsa65::keygen_internal(&rng.bytes()).1;
        let a: Vec<_> = (0..pool)
            .map(|_| preselect(&fixed, rng, random, |_| true))
            .collect();
        let b = a
            .iter()
            .map(|&(_, want)| {
                loop {
                    let mut bytes = mldsa65::keygen_internal(&rng.bytes()).1.to_bytes();
                    match keys {
                        Keys::Random => {}
                        Keys::SameRho => bytes[..32].copy_from_slice(&fixed.as_bytes()[..32]),
                        Keys::Same => bytes.copy_from_slice(fixed.as_bytes()),
                    }
                    let sk = mldsa65::SigningKey::from_bytes(&bytes[..]).expect("s1, s2 in range");
                    // A hint count in the tail of A's key can be rare for this key: after a
                    // bounded number of draws, try another key.
                    let accept = hint_filter(match_hints, want);
                    if let Some(found) = try_preselect(&sk, rng, random, accept, 200) {
                        break found;
                    }
                }
            })
            .collect();
        Dsa::new(rng, a, b)
    }

    /// One key and one μ; A = one fixed rnd, B = random rnd.
    fn rnd(rng: &mut Rand, pool: usize, match_hints: bool) -> Self {
        let sk = mldsa65::keygen_internal(&rng.bytes()).1;
        let mu: [u8; 64] = rng.bytes();
        let draw = |rng: &mut Rand| (mu, rng.bytes());
        // The fixed input has the median hint count of a few candidates, so that class B,
        // which must match it, is not left drawing for a rare one.
        let mut candidates: Vec<_> = (0..15)
            .map(|_| preselect(&sk, rng, draw, |_| true))
            .collect();
        candidates.sort_by_key(|c| c.1);
        let (fixed, want) = candidates.swap_remove(7);
        let a = (0..pool)
            .map(|_| {
                let input = DsaInput {
                    sk: sk.clone(),
                    mu,
                    rnd: fixed.rnd,
                };
                (input, want)
            })
            .collect();
        let b = (0..pool)
            .map(|_| preselect(&sk, rng, draw, hint_filter(match_hints, want)))
            .collect();
        Dsa::new(rng, a, b)
    }

    /// A control on public data only: one key and one μ, random rnd; A = signatures with at
    /// most `FEW_HINTS` hints, B = at least `MANY_HINTS` (about the quartiles).
    fn hints(rng: &mut Rand, pool: usize) -> Self {
        const FEW_HINTS: u8 = 35;
        const MANY_HINTS: u8 = 42;
        let sk = mldsa65::keygen_internal(&rng.bytes()).1;
        let mu: [u8; 64] = rng.bytes();
        let draw = |rng: &mut Rand| (mu, rng.bytes());
        let a = (0..pool)
            .map(|_| preselect(&sk, rng, draw, |h| h <= FEW_HINTS))
            .collect();
        let b = (0..pool)
            .map(|_| preselect(&sk, rng, draw, |h| h >= MANY_HINTS))
            .collect();
        Dsa::new(rng, a, b)
    }
}

impl Workload for Dsa {
    type Out = (mldsa65::Signature, u32);

    fn prepare(&mut self, rng: &mut Rand, classes: &[u8]) {
        self.picks.clear();
        for &class in classes {
            let members = &self.members[class as usize];
            self.picks.push(members[rng.below(members.len())]);
        }
    }

    /// The class does not appear here: the timed code is the same for both.
    #[inline(never)]
    fn run(&self, i: usize) -> Self::Out {
        let input = &self.inputs[self.picks[i] as usize];
        mldsa65::sign_mu_counting(&input.sk, &input.mu, &input.rnd)
    }

    fn unit(&self, i: usize) -> Option<u32> {
        Some(self.picks[i])
    }

    fn check(&self, _: usize, out: &Self::Out) {
        assert_eq!(out.1, 1, "a preselected input took more than one attempt");
    }
}

// ---------------------------------------------------------------------------------------------
// The measurement loop.

struct Report {
    target: &'static str,
    imp: Implementation,
    n: [u64; 2],
    max_t: f64,
    max_test: usize,
    /// The signed t of that test: positive when class A is slower.
    max_t_signed: f64,
    t_uncropped: f64,
    t_second: f64,
    median: [u64; 2],
    seconds: f64,
    /// The permutation test: the statistic (max |t|, second order about the final means), its
    /// p-value and the shuffled maxima's 95th percentile; None with `--perms 0`.
    permutation: Option<(f64, f64, f64)>,
    /// The inputs whose labels the permutation test shuffled.
    units: usize,
}

/// Below this permutation p-value a result is a difference between the classes.
const P_THRESHOLD: f64 = 0.01;

impl Report {
    fn verdict(&self) -> &'static str {
        match self.permutation {
            Some((_, p, _)) if p < P_THRESHOLD => "difference (p < 0.01)",
            Some(_) => "no difference detected",
            None if self.max_t < T_THRESHOLD => "no leak detected (|t| < 4.5)",
            None => "possible leak (|t| >= 4.5)",
        }
    }

    fn permutation_text(&self) -> String {
        match self.permutation {
            Some((s, p, q)) => format!(
                "permutation over {} inputs: max |t| {s:.2}, p = {p:.3}, null q95 {q:.2}",
                self.units
            ),
            None => "no permutation test".into(),
        }
    }
}

fn random_classes(rng: &mut Rand, out: &mut Vec<u8>, n: usize) {
    out.clear();
    let mut bits = [0u8; 1];
    for _ in 0..n {
        rng.fill(&mut bits);
        out.push(bits[0] & 1);
    }
}

/// Times `round` random-class measurements of `w` on `imp`, passing each to `sink`.
fn one_round<W: Workload>(
    w: &mut W,
    imp: Implementation,
    rng: &mut Rand,
    classes: &mut Vec<u8>,
    round: usize,
    mut sink: impl FnMut(u64, u8, Option<u32>),
) {
    random_classes(rng, classes, round);
    w.prepare(rng, classes);
    let w = &*w;
    with_implementation(imp, || {
        // Untimed warm-up: the inputs were just written and the code may be cold.
        for i in 0..round.min(4) {
            drop(black_box(w.run(i)));
        }
        for (i, &class) in classes.iter().enumerate() {
            let start = ticks();
            let out = black_box(w.run(black_box(i)));
            let end = ticks();
            w.check(i, &out);
            drop(out);
            sink(end.wrapping_sub(start), class, w.unit(i));
        }
    });
}

fn measure<W: Workload>(
    target: &'static str,
    w: &mut W,
    imp: Implementation,
    rng: &mut Rand,
    n: u64,
    round: usize,
    o: &Options,
) -> Report {
    let (limit, perms) = (o.limit, o.perms);
    let began = Instant::now();
    let mut classes = Vec::with_capacity(round);
    let mut calibration = Vec::with_capacity(CALIBRATION);
    while calibration.len() < CALIBRATION {
        one_round(w, imp, rng, &mut classes, round, |x, _, _| {
            calibration.push(x)
        });
    }
    let mut tests = Tests::new(calibration);
    let started = Instant::now();
    let mut done = 0u64;
    let mut next_progress = n / 10;
    while done < n && limit.is_none_or(|l| started.elapsed() < l) {
        let this = round.min((n - done) as usize);
        one_round(w, imp, rng, &mut classes, this, |x, c, u| {
            tests.push(x, c as usize, u)
        });
        done += this as u64;
        if done >= next_progress && done < n {
            let (t, i) = tests.max_t();
            eprintln!(
                "  {target} {}: {done} measurements, max |t| = {t:.2} ({})",
                imp.name(),
                test_name(i)
            );
            next_progress += n / 10;
        }
    }
    let (max_t, max_test) = tests.max_t();
    let last = PERCENTILES + 1;
    let pooled = (perms > 0 && tests.welch[0].enough()).then(|| Pooled::new(&tests));
    let permutation = pooled.as_ref().map(|p| p.permutation(perms, rng));
    let units = pooled.as_ref().map_or(0, Pooled::units);
    drop(pooled);
    Report {
        target,
        imp,
        n: [tests.welch[0].n[0] as u64, tests.welch[0].n[1] as u64],
        max_t,
        max_test,
        max_t_signed: tests.welch[max_test].t(),
        t_uncropped: tests.welch[0].t(),
        t_second: if tests.welch[last].enough() {
            tests.welch[last].t()
        } else {
            f64::NAN
        },
        median: [tests.median(0), tests.median(1)],
        seconds: began.elapsed().as_secs_f64(),
        permutation,
        units,
    }
}

// ---------------------------------------------------------------------------------------------
// Options and output.

const TARGETS: [&str; 7] = [
    "mlkem768",
    "mlkem1024",
    "mldsa65-key",
    "mldsa65-secret",
    "mldsa65-aa",
    "mldsa65-rnd",
    "mldsa65-hints",
];

struct Options {
    targets: Vec<&'static str>,
    imps: Vec<Implementation>,
    kem_n: u64,
    dsa_n: u64,
    limit: Option<Duration>,
    invalid: Invalid,
    pool: usize,
    /// Class B signing inputs are preselected to give the same hint counts as class A's: the
    /// hint encoding branches on the (public) hints, and a key's hint-count distribution is
    /// its own, so unmatched classes differ in public work.
    match_hints: bool,
    perms: usize,
}

fn usage(problem: &str) -> ! {
    eprintln!(
        "{problem}\nusage: cargo bench -p nexusq-native --bench dudect -- [--target LIST] \
         [--impl LIST] [--kem-n N] [--dsa-n N] [--seconds S] [--invalid mix|random|flip] \
         [--pool P] [--no-match-hints] [--perms P]\n  targets: {}",
        TARGETS.join(", ")
    );
    std::process::exit(2)
}

fn count(s: &str) -> u64 {
    let s = s.replace('_', "");
    let (digits, scale) = match s.strip_suffix(['k', 'K']) {
        Some(d) => (d, 1_000),
        None => match s.strip_suffix('M') {
            Some(d) => (d, 1_000_000),
            None => (s.as_str(), 1),
        },
    };
    match digits.parse::<f64>() {
        Ok(x) if x >= 1.0 => (x * scale as f64) as u64,
        _ => usage(&format!("not a count: {s}")),
    }
}

fn options() -> Options {
    let mut o = Options {
        targets: TARGETS.to_vec(),
        imps: available(),
        kem_n: 1_000_000,
        dsa_n: 100_000,
        limit: None,
        invalid: Invalid::Mix,
        pool: 512,
        match_hints: true,
        perms: 200,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        // cargo bench passes --bench to harness = false benches.
        if arg == "--bench" {
            continue;
        }
        if arg == "--help" || arg == "-h" {
            usage("");
        }
        if arg == "--no-match-hints" {
            o.match_hints = false;
            continue;
        }
        let Some(value) = args.next() else {
            usage(&format!("{arg} needs a value"))
        };
        match arg.as_str() {
            "--target" => {
                o.targets = value
                    .split(',')
                    .map(|t| {
                        *TARGETS
                            .iter()
                            .find(|&&known| known == t)
                            .unwrap_or_else(|| usage(&format!("unknown target {t}")))
                    })
                    .collect()
            }
            "--impl" => {
                o.imps = value
                    .split(',')
                    .map(|name| {
                        *available()
                            .iter()
                            .find(|i| i.name() == name)
                            .unwrap_or_else(|| {
                                usage(&format!("implementation {name} is not available here"))
                            })
                    })
                    .collect()
            }
            "--kem-n" => o.kem_n = count(&value),
            "--dsa-n" => o.dsa_n = count(&value),
            "--seconds" => o.limit = Some(Duration::from_secs(count(&value))),
            "--pool" => o.pool = count(&value) as usize,
            "--perms" => {
                o.perms = match value.as_str() {
                    "0" => 0,
                    v => count(v) as usize,
                }
            }
            "--invalid" => {
                o.invalid = match value.as_str() {
                    "mix" => Invalid::Mix,
                    "random" => Invalid::Random,
                    "flip" => Invalid::Flip,
                    _ => usage(&format!("unknown --invalid {value}")),
                }
            }
            _ => usage(&format!("unknown option {arg}")),
        }
    }
    o
}

fn print_report(r: &Report) {
    println!(
        "{} {}: n = {} + {}, median ticks A {} / B {}, max |t| = {:.2} ({}, t = {:+.2}), \
         t uncropped {:.2}, t second order {:.2}, {}, {:.0} s: {}",
        r.target,
        r.imp.name(),
        r.n[0],
        r.n[1],
        r.median[0],
        r.median[1],
        r.max_t,
        test_name(r.max_test),
        r.max_t_signed,
        r.t_uncropped,
        r.t_second,
        r.permutation_text(),
        r.seconds,
        r.verdict()
    );
}

/// Runs one target's workload on every chosen implementation.
fn on_each<W: Workload>(
    target: &'static str,
    w: &mut W,
    o: &Options,
    rng: &mut Rand,
    n: u64,
    reports: &mut Vec<Report>,
) {
    for &imp in &o.imps {
        let r = measure(target, w, imp, rng, n, ROUND, o);
        print_report(&r);
        reports.push(r);
    }
}

fn main() {
    let o = options();
    let mut rng = Rand::new();
    let mut reports = Vec::new();
    // One workload per target, shared by every implementation: the same key, the same pools.
    for &target in &o.targets {
        eprintln!("{target}: preparing");
        let (rng, reports) = (&mut rng, &mut reports);
        match target {
            "mlkem768" => on_each(
                target,
                &mut Kem768::new(rng, o.invalid),
                &o,
                rng,
                o.kem_n,
                reports,
            ),
            "mlkem1024" => on_each(
                target,
                &mut Kem1024::new(rng, o.invalid),
                &o,
                rng,
                o.kem_n,
                reports,
            ),
            "mldsa65-key" => on_each(
                target,
                &mut Dsa::keys(rng, o.pool, Keys::Random, o.match_hints),
                &o,
                rng,
                o.dsa_n,
                reports,
            ),
            "mldsa65-secret" => on_each(
                target,
                &mut Dsa::keys(rng, o.pool, Keys::SameRho, o.match_hints),
                &o,
                rng,
                o.dsa_n,
                reports,
            ),
            "mldsa65-aa" => on_each(
                target,
                &mut Dsa::keys(rng, o.pool, Keys::Same, o.match_hints),
                &o,
                rng,
                o.dsa_n,
                reports,
            ),
            "mldsa65-rnd" => on_each(
                target,
                &mut Dsa::rnd(rng, o.pool, o.match_hints),
                &o,
                rng,
                o.dsa_n,
                reports,
            ),
            "mldsa65-hints" => on_each(
                target,
                &mut Dsa::hints(rng, o.pool),
                &o,
                rng,
                o.dsa_n,
                reports,
            ),
            _ => unreachable!("checked by options()"),
        }
    }
    println!();
    println!(
        "| operation | implementation | measurements (A + B) | inputs | max abs(t) | \
         permutation p | null q95 | verdict |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---|");
    for r in &reports {
        let (p, q) = match r.permutation {
            Some((_, p, q)) => (format!("{p:.3}"), format!("{q:.2}")),
            None => ("-".into(), "-".into()),
        };
        println!(
            "| {} | {} | {} + {} | {} | {:.2} | {p} | {q} | {} |",
            r.target,
            r.imp.name(),
            r.n[0],
            r.n[1],
            r.units,
            r.max_t,
            r.verdict()
        );
    }
}
