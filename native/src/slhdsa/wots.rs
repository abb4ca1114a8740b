//! WOTS+ (FIPS 205 section 5) with lg_w = 4: 35 chains of 15 F steps per key. Signing
//! computes the public keys of W key pairs at once (lane j is key pair base + j, all on the
//! same chain and step), picking the signature's chain values out of the signing key pair's
//! lane on the way; verification runs the 35 chains of one key pair to their ends, W chains at
//! a time, handing a lane the next chain as soon as its chain ends.

use super::adrs::{WOTS_HASH, WOTS_PK, WOTS_PRF, pair, type_keypair};
use super::hash::{Lanes, Node, Nodes, Seeds, node_from_bytes, node_of, splat};
use super::params::{LEN, LEN1, N, W as CHAIN};
use crate::keccak::Permute;
use crate::simd::{KeccakLanes, Simd};

/// Words of T_len's input: PK.seed, ADRS, then the 35 chain ends.
const PK_WORDS: usize = 6 + 2 * LEN;

/// The position the signature reveals in each chain for message `m` (FIPS 205 Algorithm 7
/// lines 1-7): its 32 nibbles, most significant first, then the 3 nibbles of the checksum.
#[inline(always)]
pub(crate) fn chain_lengths(m: &Node) -> [u8; LEN] {
    let mut out = [0u8; LEN];
    let mut csum = 0u32;
    for (i, o) in out[..LEN1].iter_mut().enumerate() {
        let byte = (m[i / 16] >> (8 * (i / 2 % 8))) as u8;
        *o = if i % 2 == 0 { byte >> 4 } else { byte & 15 };
        csum += (CHAIN - 1) as u32 - u32::from(*o);
    }
    // csum << 4, as two big-endian bytes, read as three nibbles: its bits 11..0.
    out[LEN1] = (csum >> 8) as u8 & 15;
    out[LEN1 + 1] = (csum >> 4) as u8 & 15;
    out[LEN1 + 2] = csum as u8 & 15;
    out
}

/// What signing wants from the key pairs it computes: the chain values that sign `lengths` in
/// key pair `leaf`.
pub(crate) struct Signing<'a> {
    pub(crate) leaf: usize,
    pub(crate) lengths: [u8; LEN],
    pub(crate) out: &'a mut [Node; LEN],
}

/// The WOTS+ public keys of key pairs `base..base + W` of the XMSS tree at `lt` (layer and
/// tree address words): wots_pkGen (Algorithm 6) on W lanes. With `sign`, also the signature
/// (Algorithm 7) when its key pair is among them.
#[inline(always)]
pub(crate) fn public_keys<S: Simd, const W: usize>(
    h: &mut Lanes<S, W>,
    seeds: &Seeds,
    lt: [u64; 2],
    base: usize,
    mut sign: Option<&mut Signing>,
) -> Nodes<W>
where
    KeccakLanes<W>: Permute<S>,
{
    let lane = sign
        .as_ref()
        .and_then(|s| s.leaf.checked_sub(base))
        .filter(|&l| l < W);
    let kp = |kind| core::array::from_fn(|j| type_keypair(kind, (base + j) as u32));
    let prf_adrs_2: [u64; W] = kp(WOTS_PRF);
    let mut adrs = [splat(lt[0]), splat(lt[1]), kp(WOTS_HASH), splat(0)];
    let sk = [splat(seeds.sk[0]), splat(seeds.sk[1])];
    let mut words = [[0u64; W]; PK_WORDS];
    words[0] = splat(seeds.pk[0]);
    words[1] = splat(seeds.pk[1]);
    words[2] = splat(lt[0]);
    words[3] = splat(lt[1]);
    words[4] = kp(WOTS_PK);
    for i in 0..LEN {
        let chain = i as u32;
        let prf_adrs = [adrs[0], adrs[1], prf_adrs_2, splat(pair(chain, 0))];
        let mut v = h.short::<2>(&seeds.pk, &prf_adrs, &sk);
        for step in 0..CHAIN - 1 {
            if let (Some(l), Some(s)) = (lane, sign.as_deref_mut())
                && usize::from(s.lengths[i]) == step
            {
                s.out[i] = node_of(&v, l);
            }
            adrs[3] = splat(pair(chain, step as u32));
            v = h.short::<2>(&seeds.pk, &adrs, &v);
        }
        if let (Some(l), Some(s)) = (lane, sign.as_deref_mut())
            && usize::from(s.lengths[i]) == CHAIN - 1
        {
            s.out[i] = node_of(&v, l);
        }
        words[6 + 2 * i] = v[0];
        words[7 + 2 * i] = v[1];
    }
    h.long(&words)
}

/// wots_pkFromSig (Algorithm 8) of key pair `kp` of the tree at `lt`: each chain from its
/// signed position to its end, W chains at a time, longest first, so few lanes idle at the end.
/// A lane's output is its next input, and only a chain's start and end touch memory: the
/// schedule is the hot loop of verification, run once per hash batch.
#[inline(always)]
pub(crate) fn public_key_from_sig<S: Simd, const W: usize>(
    h: &mut Lanes<S, W>,
    pk_seed: &Node,
    lt: [u64; 2],
    kp: u32,
    sig: &[u8],
    m: &Node,
) -> Node
where
    KeccakLanes<W>: Permute<S>,
{
    let lengths = chain_lengths(m);
    // T_len's input; chain i's value lives in words 6 + 2i and 7 + 2i from start to end.
    let mut words = [0u64; PK_WORDS];
    words[..2].copy_from_slice(pk_seed);
    words[2..4].copy_from_slice(&lt);
    words[4] = type_keypair(WOTS_PK, kp);
    for (w, s) in words[6..].chunks_exact_mut(2).zip(sig.chunks_exact(N)) {
        w.copy_from_slice(&node_from_bytes(s));
    }
    // The chains with hashes left, most first: by signed position, ascending (a counting
    // sort: positions are 0..=15), without those at the end. The order depends on the message
    // digest only, which is public.
    let mut count = [0u8; CHAIN];
    for &l in &lengths {
        count[usize::from(l)] += 1;
    }
    let mut at = [0u8; CHAIN];
    for l in 1..CHAIN {
        at[l] = at[l - 1] + count[l - 1];
    }
    let busy = LEN - usize::from(count[CHAIN - 1]);
    let mut order = [0u8; LEN];
    for (c, &l) in lengths.iter().enumerate() {
        let slot = &mut at[usize::from(l)];
        order[usize::from(*slot)] = c as u8;
        *slot += 1;
    }
    let mut queue = order[..busy].iter().map(|&c| usize::from(c));

    let mut lanes = Chains::<W> {
        adrs: [
            splat(lt[0]),
            splat(lt[1]),
            splat(type_keypair(WOTS_HASH, kp)),
            splat(0),
        ],
        cur: [[0; W]; 2],
        chain: [0; W],
        left: [0; W],
    };
    let mut active = 0;
    for j in 0..W {
        if let Some(c) = queue.next() {
            lanes.begin(j, c, &lengths, &words);
            active += 1;
        }
    }
    while active > 0 {
        lanes.cur = h.short::<2>(pk_seed, &lanes.adrs, &lanes.cur);
        for j in 0..W {
            // The hash address is the top byte of word 3 (a big-endian u32 below 16).
            lanes.adrs[3][j] = lanes.adrs[3][j].wrapping_add(1 << 56);
            match lanes.left[j] {
                0 => {}
                1 => {
                    let c = lanes.chain[j];
                    words[6 + 2 * c] = lanes.cur[0][j];
                    words[7 + 2 * c] = lanes.cur[1][j];
                    lanes.left[j] = 0;
                    match queue.next() {
                        Some(c) => lanes.begin(j, c, &lengths, &words),
                        None => active -= 1,
                    }
                }
                _ => lanes.left[j] -= 1,
            }
        }
    }
    h.one().long(&words)
}

/// Verification's W lanes of chains: each lane's hash address word, value, chain and hashes
/// left in it (0: idle).
struct Chains<const W: usize> {
    adrs: [[u64; W]; 4],
    cur: Nodes<W>,
    chain: [usize; W],
    left: [usize; W],
}

impl<const W: usize> Chains<W> {
    /// Lane `j` takes chain `c` from its signed position; `words` holds the chains' values.
    #[inline(always)]
    fn begin(&mut self, j: usize, c: usize, lengths: &[u8; LEN], words: &[u64]) {
        self.adrs[3][j] = pair(c as u32, u32::from(lengths[c]));
        self.cur[0][j] = words[6 + 2 * c];
        self.cur[1][j] = words[7 + 2 * c];
        self.chain[j] = c;
        self.left[j] = (CHAIN - 1) - usize::from(lengths[c]);
    }
}
