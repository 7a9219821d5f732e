//! Deterministic mutations of text and bytes, from a seeded generator.

/// SplitMix64: small, fast and seedable; a case's input is a function of (seed, target, index).
pub struct Rng(u64);

impl Rng {
    /// The generator of case `index` of `target` in a run seeded `seed`.
    pub fn for_case(seed: u64, target: &str, index: u64) -> Self {
        let mut h = seed ^ 0x9E37_79B9_7F4A_7C15;
        for b in target.bytes() {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01B3);
        }
        Rng(h ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03))
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Numbers an adversary types: the edges of double precision, signs, zero, and the absurd.
pub const HOSTILE_NUMBERS: [&str; 22] = [
    "0",
    "-0.0",
    "-1",
    "1e-300",
    "5e-324",
    "1e300",
    "-1e300",
    "1.7976931348623157e308",
    "1e30",
    "-1e30",
    "1e15",
    "nan",
    "inf",
    "-inf",
    "1e-12",
    "4294967296",
    "-9223372036854775808",
    "18446744073709551616",
    "0.5",
    "3",
    "1e9",
    "1e-9",
];

/// Values of other types and shapes.
pub const HOSTILE_VALUES: [&str; 12] = [
    "\"x\"",
    "\"\"",
    "\"../../../x\"",
    "\"/etc/passwd\"",
    "true",
    "[]",
    "[1e300, 0.0, 0.0]",
    "[nan, 0.0, 0.0]",
    "[0.0, 0.0]",
    "{}",
    "[[1.0]]",
    "\"\\u0000\"",
];

/// Byte ranges of the numbers in `text` (an optional sign, digits, a point, an exponent).
pub fn number_spans(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let (mut spans, mut i) = (Vec::new(), 0);
    while i < b.len() {
        let starts = b[i].is_ascii_digit() && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'));
        if !starts {
            i += 1;
            continue;
        }
        let start = if i > 0 && (b[i - 1] == b'-' || b[i - 1] == b'+') { i - 1 } else { i };
        let mut j = i;
        while j < b.len() && (b[j].is_ascii_digit() || b[j] == b'.' || b[j] == b'_') {
            j += 1;
        }
        if j < b.len() && (b[j] == b'e' || b[j] == b'E') {
            let mut k = j + 1;
            if k < b.len() && (b[k] == b'-' || b[k] == b'+') {
                k += 1;
            }
            if k < b.len() && b[k].is_ascii_digit() {
                j = k;
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
            }
        }
        spans.push((start, j));
        i = j;
    }
    spans
}

/// `text` with `count` mutations: numbers replaced by hostile ones or scaled, values of other
/// types, lines deleted, duplicated or swapped, characters changed, the end cut off.
pub fn text(text: &str, rng: &mut Rng, count: usize) -> String {
    let mut t = text.to_string();
    for _ in 0..count {
        t = once(&t, rng);
    }
    t
}

fn once(t: &str, rng: &mut Rng) -> String {
    let spans = number_spans(t);
    let lines: Vec<&str> = t.lines().collect();
    match rng.below(10) {
        0..=3 if !spans.is_empty() => {
            let (a, b) = *rng.pick(&spans);
            format!("{}{}{}", &t[..a], rng.pick(&HOSTILE_NUMBERS), &t[b..])
        }
        4 | 5 if !spans.is_empty() => {
            let (a, b) = *rng.pick(&spans);
            let scale = *rng.pick(&[0.0, -1.0, 1e-6, 1e-3, 0.1, 10.0, 1e3, 1e6, 1e12]);
            let v = t[a..b].replace('_', "").parse::<f64>().unwrap_or(1.0) * scale;
            format!("{}{:?}{}", &t[..a], v, &t[b..])
        }
        6 if !spans.is_empty() => {
            let (a, b) = *rng.pick(&spans);
            format!("{}{}{}", &t[..a], rng.pick(&HOSTILE_VALUES), &t[b..])
        }
        7 if !lines.is_empty() => {
            let (i, j) = (rng.below(lines.len()), rng.below(lines.len()));
            let mut l: Vec<&str> = lines.clone();
            match rng.below(3) {
                0 => {
                    l.remove(i);
                }
                1 => l.insert(i, lines[j]),
                _ => l.swap(i, j),
            }
            l.join("\n")
        }
        8 if !t.is_empty() => {
            let mut chars: Vec<char> = t.chars().collect();
            let i = rng.below(chars.len());
            chars[i] = *rng.pick(&['"', '[', ']', '=', '\n', '#', ' ', '\\', '{', '<', '>', '/', 'x', '\u{0}']);
            chars.into_iter().collect()
        }
        _ => {
            let mut end = rng.below(t.len() + 1);
            while !t.is_char_boundary(end) {
                end -= 1;
            }
            t[..end].to_string()
        }
    }
}

/// `bytes` with `count` mutations: bits flipped, bytes set, aligned 4- and 8-byte fields
/// overwritten with extreme integers and doubles, the end cut off or a chunk repeated.
pub fn bytes(data: &[u8], rng: &mut Rng, count: usize) -> Vec<u8> {
    let mut b = data.to_vec();
    for _ in 0..count {
        if b.is_empty() {
            b.push(0);
        }
        let i = rng.below(b.len());
        match rng.below(7) {
            0 => b[i] ^= 1 << rng.below(8),
            1 => b[i] = *rng.pick(&[0u8, 0xFF, b'\n', b' ', b'-', b'e', b'9', 0x80]),
            2 if b.len() >= 8 => {
                let at = (i / 8 * 8).min(b.len() - 8);
                let v = *rng.pick(&[f64::NAN, f64::INFINITY, -f64::INFINITY, 1e308, -1e308, 1e-308, 0.0, 1e30, -1.0]);
                b[at..at + 8].copy_from_slice(&v.to_le_bytes());
            }
            3 if b.len() >= 4 => {
                let at = (i / 4 * 4).min(b.len() - 4);
                let v = *rng.pick(&[0u32, 1, 2, 0x7FFF_FFFF, u32::MAX, 65_536, 3]);
                b[at..at + 4].copy_from_slice(&v.to_le_bytes());
            }
            4 => b.truncate(i),
            5 => {
                let j = (i + 1 + rng.below(64)).min(b.len());
                let chunk = b[i..j].to_vec();
                b.splice(i..i, chunk);
            }
            _ => b.insert(i, rng.next() as u8),
        }
    }
    b
}
